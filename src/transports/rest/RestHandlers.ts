import type * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as Rpc from "@effect/rpc/Rpc"
import type * as RpcGroup from "@effect/rpc/RpcGroup"
import { Effect, Layer } from "effect"
import { InvalidArgument } from "../../domain/Errors.js"
import { spelledIn } from "../../domain/FieldNames.js"
import { LicenseOperations } from "../../contract/LicenseOperations.js"
import { operation } from "../../operations/Operation.js"
import { OrgOperations } from "../../contract/OrgOperations.js"
import { ProfileOperations } from "../../contract/ProfileOperations.js"
import { WorkflowOperations } from "../../contract/WorkflowOperations.js"
import { jsonNamed } from "./JsonNamed.js"
import { JsonBody, LicenseHttpApi, OrgHttpApi, ProfileHttpApi, WorkflowHttpApi } from "../../contract/HttpApis.js"
import { type QueryParameters, queryRequest } from "./RequestBody.js"
import { JsonBodyReaderLive, withPathId } from "./RequestBody.js"
import { restCall } from "./RestCall.js"
import type * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Buffer } from "node:buffer"

/**
 * Each REST endpoint: its request -> an operation of the service's table -> its value, which the
 * endpoint's success schema writes (a resource's record is written as its JSON: `jsonReply`);
 * failures are the operation's tagged errors, which its error schemas write (RestErrors.ts).
 * Writes are `handleRaw`, not `.handle` with the payload schema their endpoint declares, because
 * of how the platform decodes (shown on the bare platform by test/transports/rest-upstream.test.ts):
 * - it decodes the path and the body apart, the path first, and stops at the first that fails,
 *   so `PUT /licenses/x` with broken fields would name the id alone (or, the path taken as text,
 *   the fields alone), where every style names every broken rule at once
 *   (test/reliability/bad-input.test.ts, "every rule broken at once");
 * - it reads the body itself (`request.json`) after the endpoint's middleware, which must read it
 *   first to answer 413, 415 and the JSON bounds in the REST error body (not a reset connection,
 *   not the platform's empty 400), and cannot hand the platform what it read;
 * - a write's domain value is the path's id and the body together (a license's end after its
 *   start is a rule of the record), so the payload's decode would not be the one decode.
 * So the JsonBodyReader middleware reads the body, its proto names are read as JSON names, and the
 * operation decodes it once, with the path's id, by the domain schema (`requestOf`), before the
 * handler, which takes the domain value.
 */

/** An endpoint of a port's API, by its group's and its own name, as HttpApis.ts declares them. */
export const endpointOf = (api: HttpApi.HttpApi.Any, group: string, name: string): HttpApiEndpoint.HttpApiEndpoint.AnyWithProps => {
  const endpoint = (api as HttpApi.HttpApi.AnyWithProps).groups[group]?.endpoints[name]
  if (endpoint === undefined) throw new Error(`no endpoint ${group}.${name} in this API`)
  return endpoint
}

/**
 * Writes a reply as the JSON of the value itself, at its endpoint's success status, where the
 * platform would encode the value with the endpoint's success schema: that encode checks every
 * field again, each step an Effect, on a value whose fields passed those checks when it was made
 * and are already their own encoded form (the share of a REST read's CPU: docs/benchmarks.md
 * §5, "What each part of a call costs"). Used for the replies that hold a domain record under its key (`{"org": …}`), whose fields
 * are ids, names and canonical timestamps, and for the workflow's result (its four ids).
 * test/transports/rest-reply.test.ts encodes each such endpoint's replies with its success schema
 * too, and fails when the two differ.
 */
export const jsonReply = (endpoint: HttpApiEndpoint.HttpApiEndpoint.AnyWithProps, key?: string) => {
  const status = HttpApiSchema.getStatusSuccess(endpoint.successSchema)
  // Under a key (an identifier: nothing to escape), the value's JSON is written inside
  // `{"<key>":…}` as text, with no object made to hold it.
  const [before, after] = key === undefined ? ["", ""] : [`{${JSON.stringify(key)}:`, "}"]
  // The JSON text is the body as it is, with its length: Node writes the string to the socket
  // itself, where `unsafeJson` would first encode it into a byte array of its own.
  return (value: unknown): HttpServerResponse.HttpServerResponse => {
    const json = before + JSON.stringify(value) + after
    return HttpServerResponse.raw(json, { status, contentType: "application/json", contentLength: Buffer.byteLength(json) })
  }
}

/** How a JSON request (a body, a list's query) names operation `tag`'s fields: a proto name (`full_name`) read as the JSON name (`fullName`). */
const payloadNames = <Rpcs extends Rpc.Any>(table: RpcGroup.RpcGroup<Rpcs>, tag: Rpcs["_tag"]) =>
  jsonNamed((table.requests.get(tag) as unknown as Rpc.AnyWithProps).payloadSchema)

/** A refusal's violations named as the request `sent` spelled each field (`full_name` or `fullName`). */
const spelledAsSent = (sent: unknown) => <E>(error: E): E | InvalidArgument =>
  error instanceof InvalidArgument ? error.fieldsNamed(spelledIn(sent)) : error

/**
 * Operation `tag` of a table, for a JSON body: a field its payload does not have is left as the
 * caller named it, and the operation refuses it by that name; a refusal's details name each
 * field as the caller spelled it.
 */
const jsonOperation = <Rpcs extends Rpc.Any, const Tag extends Rpcs["_tag"]>(table: RpcGroup.RpcGroup<Rpcs>, tag: Tag) => {
  const named = payloadNames(table, tag)
  const run = operation(table, tag)
  return (input: unknown) => Effect.mapError(run(named(input)), spelledAsSent(input))
}

/** A page of list `tag`, from its query parameters (proto names beside JSON names; see RequestBody.ts). */
const listCall = <Rpcs extends Rpc.Any, const Tag extends Rpcs["_tag"]>(table: RpcGroup.RpcGroup<Rpcs>, tag: Tag) => {
  const named = payloadNames(table, tag)
  const run = operation(table, tag)
  return ({ urlParams }: { readonly urlParams: QueryParameters }) =>
    restCall(Effect.mapError(Effect.flatMap(queryRequest(named(urlParams) as QueryParameters), run), spelledAsSent(urlParams)))
}

/**
 * Create under the path's id, and read back, for a resource of `group` answered as `{<key>: <record>}`
 * (its endpoints `create<Key>`, `put<Key>` and `get<Key>`), the reply written by `jsonReply`.
 */
const resourceCalls = <const K extends string, A, E1, R1, E2, R2>(
  api: HttpApi.HttpApi.Any,
  group: string,
  key: K,
  create: (input: unknown) => Effect.Effect<A, E1, R1>,
  get: (input: unknown) => Effect.Effect<A, E2, R2>
) => {
  const Key = `${key[0]!.toUpperCase()}${key.slice(1)}`
  const created = jsonReply(endpointOf(api, group, `create${Key}`), key)
  const found = jsonReply(endpointOf(api, group, `get${Key}`), key)
  return {
    create: ({ path }: { readonly path: { readonly id: string } }) =>
      restCall(Effect.gen(function*() {
        return created(yield* create(yield* withPathId(yield* JsonBody, path.id)))
      })),
    get: ({ path }: { readonly path: { readonly id: string } }) =>
      // The path as the platform decoded it, a new object each call, is the read's request.
      restCall(Effect.map(get(path), found))
  }
}

const orgs = resourceCalls(OrgHttpApi, "orgs", "org", jsonOperation(OrgOperations, "CreateOrg"), operation(OrgOperations, "GetOrg"))
const OrgsLive = HttpApiBuilder.group(
  OrgHttpApi,
  "orgs",
  (handlers) =>
    handlers.handle("listOrgs", listCall(OrgOperations, "ListOrgs"))
      .handle("getOrg", orgs.get).handleRaw("createOrg", orgs.create).handleRaw("putOrg", orgs.create)
)

const profiles = resourceCalls(
  ProfileHttpApi,
  "profiles",
  "profile",
  jsonOperation(ProfileOperations, "CreateProfile"),
  operation(ProfileOperations, "GetProfile")
)
const ProfilesLive = HttpApiBuilder.group(
  ProfileHttpApi,
  "profiles",
  (handlers) =>
    handlers.handle("listProfiles", listCall(ProfileOperations, "ListProfiles"))
      .handle("getProfile", profiles.get).handleRaw("createProfile", profiles.create)
      .handleRaw("putProfile", profiles.create)
)

const licenses = resourceCalls(
  LicenseHttpApi,
  "licenses",
  "license",
  jsonOperation(LicenseOperations, "CreateLicense"),
  operation(LicenseOperations, "GetLicense")
)
const LicensesLive = HttpApiBuilder.group(
  LicenseHttpApi,
  "licenses",
  (handlers) =>
    handlers.handle("listLicenses", listCall(LicenseOperations, "ListLicenses"))
      .handle("getLicense", licenses.get).handleRaw("createLicense", licenses.create)
      .handleRaw("putLicense", licenses.create)
)

const createWorkflow = jsonOperation(WorkflowOperations, "CreateOnboardingWorkflow")
const getWorkflow = operation(WorkflowOperations, "GetOnboardingWorkflow")

/** The one Effect every create runs (it reads its body from the call's context), its result written by `jsonReply`. */
const workflowCreated = restCall(
  Effect.map(Effect.flatMap(JsonBody, createWorkflow), jsonReply(endpointOf(WorkflowHttpApi, "workflows", "createOnboardingWorkflow")))
)

const WorkflowsLive = HttpApiBuilder.group(
  WorkflowHttpApi,
  "workflows",
  (handlers) =>
    handlers
      .handle("listOnboardingWorkflows", listCall(WorkflowOperations, "ListOnboardingWorkflows"))
      .handleRaw("createOnboardingWorkflow", () => workflowCreated)
      .handle("getOnboardingWorkflow", ({ path }) =>
        restCall(
          getWorkflow({ workflowId: path.id }).pipe(
            Effect.map((workflow) => ({ workflow })),
            // The run's id is the path's `{id}` here: refusals name it so.
            Effect.catchTag("InvalidArgument", (invalid) => Effect.fail(invalid.renamed("workflowId", "id")))
          )
        ))
)

export const OrgRestLive = HttpApiBuilder.api(OrgHttpApi).pipe(Layer.provide(OrgsLive), Layer.provide(JsonBodyReaderLive))
export const ProfileRestLive = HttpApiBuilder.api(ProfileHttpApi).pipe(
  Layer.provide(ProfilesLive),
  Layer.provide(JsonBodyReaderLive)
)
export const LicenseRestLive = HttpApiBuilder.api(LicenseHttpApi).pipe(
  Layer.provide(LicensesLive),
  Layer.provide(JsonBodyReaderLive)
)
export const WorkflowRestLive = HttpApiBuilder.api(WorkflowHttpApi).pipe(
  Layer.provide(WorkflowsLive),
  Layer.provide(JsonBodyReaderLive)
)
