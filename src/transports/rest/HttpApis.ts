import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as OpenApi from "@effect/platform/OpenApi"
import { Context, Schema } from "effect"
import { LicenseId, OrgId, ProfileId } from "../../domain/Ids.js"
import { License, ListLicensesResponse } from "../../domain/License.js"
import {
  ListOnboardingWorkflowsResponse,
  OnboardingRequest,
  OnboardingResult,
  OnboardingRun
} from "../../domain/Onboarding.js"
import { ListOrgsResponse, Org } from "../../domain/Org.js"
import { defaultPageSize, maxPageSize } from "../../domain/Page.js"
import { ListProfilesResponse, Profile } from "../../domain/Profile.js"
import { RestErrors } from "./RestErrors.js"

/**
 * The REST face of each port (contract §3.5), declared once: the server's routes, the OpenAPI
 * document at `/openapi.json` and the typed HttpApiClient all come from these. Bodies are the
 * domain's schemas in their JSON form; the handlers check them with the operations' own rules.
 */

/** A write's JSON object body, its keys in lowerCamel (proto names accepted, the JSON name winning). */
export class JsonBody extends Context.Tag("JsonBody")<JsonBody, Readonly<Record<string, unknown>>>() {}

/**
 * Reads a write's body before its handler runs: 415 unless it is JSON in UTF-8, 413 over
 * MAX_BODY_BYTES or the JSON bounds (the connection kept for the answer), 400 unless it is a JSON
 * object. The handler passes it to its operation, whose schema is the one decode of its fields
 * (every style's rules and messages), so the endpoint's payload schema documents it and is not
 * run a second time (the handlers are `handleRaw`).
 */
export class JsonBodyReader extends HttpApiMiddleware.Tag<JsonBodyReader>()("JsonBodyReader", {
  provides: JsonBody,
  failure: Schema.Union(RestErrors.UnsupportedMediaType, RestErrors.ResourceExhausted, RestErrors.InvalidArgument)
}) {}

/** A body's fields as JSON (`{name}`); the id, if repeated there, must match the path's. */
const bodyOf = <Fields extends Schema.Struct.Fields, Id extends Schema.Schema.Any>(
  fields: Fields,
  id: Id,
  identifier: string,
  description?: string
) =>
  Schema.Struct({
    ...fields,
    id: Schema.optional(id).annotations({ description: "the same id as the path's, if given at all" })
  }).annotations({ identifier, ...(description === undefined ? {} : { description }) })

const reply = <K extends string, S extends Schema.Schema.Any>(key: K, schema: S, identifier: string) =>
  Schema.Struct({ [key]: schema } as { [P in K]: S }).annotations({ identifier })

/**
 * The path's id, taken as the caller wrote it: the operation checks it (a UUID) together with the
 * body's fields, so that every broken rule is reported at once, as in the other styles.
 */
const PathId = Schema.Struct({
  id: Schema.String.annotations({ description: "a UUID (8-4-4-4-12 hex digits)", jsonSchema: { format: "uuid" } })
})

/**
 * A query parameter as the caller wrote it: the list operation checks it, with the other
 * styles' rules and messages (so it is never refused here in the platform's own form, not even
 * when repeated). Documented as the string it should be.
 */
const queryParameter = (description: string) =>
  Schema.optional(Schema.Union(Schema.String, Schema.Array(Schema.String)).annotations({ jsonSchema: { type: "string" }, description }))

/** A list's query parameters (contract §3.6b), each under its JSON name and its proto name. */
const listParameters = <const Filter extends string>(filter?: { readonly json: Filter; readonly proto: string; readonly description: string }) =>
  Schema.Struct({
    pageSize: queryParameter(`rows per page: 1 to ${maxPageSize}; 0 or absent means ${defaultPageSize}`),
    page_size: queryParameter("the same as pageSize"),
    pageToken: queryParameter("the nextPageToken of the previous page; absent or empty for the first page"),
    page_token: queryParameter("the same as pageToken"),
    ...(filter === undefined
      ? {}
      : { [filter.json]: queryParameter(filter.description), [filter.proto]: queryParameter(`the same as ${filter.json}`) })
  })

/** `GET <path>`: a page of the list, `{<items>: [...], nextPageToken}` ("" on the last page). */
const listEndpoint = <const Name extends string, const Path extends `/${string}`, R extends Schema.Schema.Any>(
  name: Name,
  path: Path,
  reply: R,
  parameters: ReturnType<typeof listParameters>
) =>
  HttpApiEndpoint.get(name, path).setUrlParams(parameters).addSuccess(reply)
    .annotate(OpenApi.Summary, `${name[0]!.toUpperCase()}${name.slice(1)}`)
    .annotate(OpenApi.Description, "Newest first, a page at a time (AIP-158). A page token is bound to the filter it was made for.")


/**
 * A resource created under the caller's id and read back (contract §3.5): `GET /<plural>/{id}`,
 * and `POST` or `PUT` (the same create) with its fields as JSON; each answers `{<name>: {...}}`.
 * `GET /<plural>` lists them (contract §3.6b).
 */
const resourceRest = <
  const Group extends string,
  const Name extends string,
  const Path extends `/${string}`,
  R extends Schema.Schema.Any,
  B extends Schema.Schema.Any,
  L extends Schema.Schema.Any
>(group: Group, name: Name, path: Path, reply: R, body: B, list: { readonly reply: L; readonly parameters: ReturnType<typeof listParameters> }) => {
  const Operation = `${name[0]!.toUpperCase()}${name.slice(1)}` as Capitalize<Name>
  const item = `${path}/:id` as `/${string}`
  return HttpApiGroup.make(group)
    .add(listEndpoint(`list${group[0]!.toUpperCase()}${group.slice(1)}` as `list${Capitalize<Group>}`, path, list.reply, list.parameters))
    .add(
      HttpApiEndpoint.get(`get${Operation}`, item).setPath(PathId).addSuccess(reply)
        .addError(RestErrors.NotFound).annotate(OpenApi.Summary, `Get${Operation}`)
    )
    .add(
      HttpApiEndpoint.post(`create${Operation}`, item).setPath(PathId).setPayload(body).addSuccess(reply)
        .addError(RestErrors.AlreadyExists).middleware(JsonBodyReader).annotate(OpenApi.Summary, `Create${Operation}`)
    )
    .add(
      HttpApiEndpoint.put(`put${Operation}`, item).setPath(PathId).setPayload(body).addSuccess(reply)
        .addError(RestErrors.AlreadyExists).middleware(JsonBodyReader).annotate(OpenApi.Summary, `Create${Operation} (PUT: the same)`)
    )
}

const { id: _orgId, ...orgFields } = Org.fields
export class OrgsRest extends resourceRest(
  "orgs",
  "org",
  "/orgs",
  reply("org", Org, "OrgReply"),
  bodyOf(orgFields, OrgId, "CreateOrgBody"),
  { reply: ListOrgsResponse, parameters: listParameters() }
) {}

const { id: _profileId, ...profileFields } = Profile.fields
export class ProfilesRest extends resourceRest(
  "profiles",
  "profile",
  "/profiles",
  reply("profile", Profile, "ProfileReply"),
  bodyOf(profileFields, ProfileId, "CreateProfileBody"),
  {
    reply: ListProfilesResponse,
    parameters: listParameters({ json: "orgId", proto: "org_id", description: "only the profiles of this org (a UUID)" })
  }
) {}

const { id: _licenseId, ...licenseFields } = License.fields
export class LicensesRest extends resourceRest(
  "licenses",
  "license",
  "/licenses",
  reply("license", License, "LicenseReply"),
  bodyOf(licenseFields, LicenseId, "CreateLicenseBody", "`end` must be after `start`"),
  {
    reply: ListLicensesResponse,
    parameters: listParameters({ json: "userId", proto: "user_id", description: "only the licenses of this user (a UUID)" })
  }
) {}

export const workflowsPath = "/workflow/workflows/onboarding"

export class WorkflowsRest extends HttpApiGroup.make("workflows")
  .add(
    listEndpoint(
      "listOnboardingWorkflows",
      workflowsPath,
      ListOnboardingWorkflowsResponse,
      listParameters({ json: "status", proto: "status", description: "only the runs with this status (completed)" })
    )
  )
  .add(
    HttpApiEndpoint.post("createOnboardingWorkflow", workflowsPath)
      .setPayload(Schema.encodedSchema(OnboardingRequest).annotations({ identifier: "CreateOnboardingWorkflowBody" }))
      .addSuccess(OnboardingResult).addError(RestErrors.AlreadyExists).middleware(JsonBodyReader).annotate(OpenApi.Summary, "CreateOnboardingWorkflow")
      .annotate(
        OpenApi.Description,
        "Creates an org, a profile in it and a license for that profile in one transaction. With workflowOptions.workflowId, a repeat answers with the first run's result."
      )
  )
  .add(
    HttpApiEndpoint.get("getOnboardingWorkflow", `${workflowsPath}/:id`).setPath(PathId)
      .addSuccess(reply("workflow", OnboardingRun, "OnboardingWorkflowReply")).addError(RestErrors.NotFound)
      .annotate(OpenApi.Summary, "GetOnboardingWorkflow")
  )
{}

/** A port's API: its group, what every call of it may answer besides its own errors, the token. */
const port = <Id extends string, Group extends HttpApiGroup.HttpApiGroup.Any>(id: Id, title: string, group: Group) =>
  HttpApi.make(id)
    .add(group)
    .addError(RestErrors.InvalidArgument)
    .addError(RestErrors.Unauthenticated)
    .addError(RestErrors.Internal)
    .addError(RestErrors.Unavailable)
    .annotate(OpenApi.Title, title)
    .annotate(OpenApi.Version, "v1beta1")

export class OrgHttpApi extends port("org", "Org service", OrgsRest) {}
export class ProfileHttpApi extends port("profile", "Profile service", ProfilesRest) {}
export class LicenseHttpApi extends port("license", "License service", LicensesRest) {}
export class WorkflowHttpApi extends port("workflow", "Onboarding workflow service", WorkflowsRest) {}
