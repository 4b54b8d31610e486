import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as OpenApi from "@effect/platform/OpenApi"
import { Context, Option, Schema, SchemaAST } from "effect"
import { documented } from "../domain/Described.js"
import { documentedEncoded } from "../domain/RecordFields.js"
import { LicenseId, OrgId, ProfileId, WorkflowId } from "../domain/Ids.js"
import { License, ListLicensesRequest, ListLicensesResponse } from "../domain/License.js"
import {
  ListOnboardingWorkflowsRequest,
  ListOnboardingWorkflowsResponse,
  OnboardingRequest,
  OnboardingResult,
  OnboardingRun
} from "../domain/Onboarding.js"
import { ListOrgsRequest, ListOrgsResponse, Org } from "../domain/Org.js"
import { ListProfilesRequest, ListProfilesResponse, Profile } from "../domain/Profile.js"
import { listEndpoint, type ListParameters, listParameters } from "./ListEndpoint.js"
import { protoNamesDocumented } from "./ProtoNamesDocumented.js"
import { RestErrors } from "./RestErrors.js"

/**
 * The REST face of each port (contract §5), declared once: the server's routes, the OpenAPI
 * document at `/openapi.json` and the typed HttpApiClient all come from these. Bodies are the
 * domain's schemas in their JSON form; the handlers check them with the operations' own rules.
 */

/** A write's JSON object body, as the caller wrote it (its handler reads it as its operation's payload: `jsonNamed`). */
export class JsonBody extends Context.Tag("JsonBody")<JsonBody, Readonly<Record<string, unknown>>>() {}

/**
 * Reads a write's body before its handler runs: 415 unless it is JSON in UTF-8, 413 over
 * MAX_BODY_BYTES or the JSON bounds (the connection kept for the answer), 400 unless it is a JSON
 * object. The handler passes it to its operation, whose schema is the one decode of its fields
 * (every style's rules and messages), so the endpoint's payload schema documents it and is not
 * run a second time (the handlers are `handleRaw`: RestHandlers.ts says why).
 */
export class JsonBodyReader extends HttpApiMiddleware.Tag<JsonBodyReader>()("JsonBodyReader", {
  provides: JsonBody,
  failure: Schema.Union(RestErrors.UnsupportedMediaType, RestErrors.ResourceExhausted, RestErrors.InvalidArgument)
}) {}

const sameId = "the same id as the path's, if given at all"

/** A body's fields as JSON (`{name}`); the id, if repeated there, must match the path's. */
const bodyOf = <Fields extends Schema.Struct.Fields, Id extends Schema.Schema.Any>(
  fields: Fields,
  id: Id,
  identifier: string,
  description?: string
) =>
  Schema.Struct({
    ...fields,
    id: Schema.optional(documented(id, sameId)).annotations({ description: sameId })
  }).annotations({ identifier, ...(description === undefined ? {} : { description }) })

const reply = <K extends string, S extends Schema.Schema.Any>(key: K, schema: S, identifier: string) =>
  Schema.Struct({ [key]: schema } as { [P in K]: S }).annotations({ identifier })

/** The examples a domain schema or field declares (Ids.ts, Org.ts, ...): documentation only. */
const examplesOf = (annotated: SchemaAST.Annotated): ReadonlyArray<unknown> =>
  Option.getOrElse(SchemaAST.getExamplesAnnotation(annotated) as Option.Option<ReadonlyArray<unknown>>, () => [])

/**
 * The path's id, taken as the caller wrote it: the operation checks it (a UUID) together with the
 * body's fields, so that every broken rule is reported at once, as in the other styles. Its
 * example is the id type's own, the one the body's `id` shows too: Swagger UI's prefilled path
 * and body agree, so "Execute" unchanged is not refused for a mismatch.
 */
const pathId = (id: Schema.Schema.Any) =>
  Schema.Struct({
    id: Schema.String.annotations({
      description: "a UUID (8-4-4-4-12 hex digits)",
      jsonSchema: { format: "uuid" },
      examples: examplesOf(id.ast) as readonly [string, ...Array<string>]
    })
  })

/**
 * A resource created under the caller's id and read back (contract §5): `GET /<plural>/{id}`,
 * and `POST` or `PUT` (the same create) with its fields as JSON; each answers `{<name>: {...}}`.
 * `GET /<plural>` lists them (contract §7).
 */
const resourceRest = <
  const Group extends string,
  const Name extends string,
  const Path extends `/${string}`,
  R extends Schema.Schema.Any,
  B extends Schema.Schema.Any,
  L extends Schema.Schema.Any,
  Names extends string
>(
  group: Group,
  name: Name,
  path: Path,
  reply: R,
  body: B,
  id: Schema.Schema.Any,
  list: { readonly reply: L; readonly parameters: ListParameters<Names> }
) => {
  const Operation = `${name[0]!.toUpperCase()}${name.slice(1)}` as Capitalize<Name>
  const item = `${path}/:id` as `/${string}`
  const PathId = pathId(id)
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
  OrgId,
  { reply: ListOrgsResponse, parameters: listParameters(ListOrgsRequest) }
) {}

const { id: _profileId, ...profileFields } = Profile.fields
export class ProfilesRest extends resourceRest(
  "profiles",
  "profile",
  "/profiles",
  reply("profile", Profile, "ProfileReply"),
  bodyOf(profileFields, ProfileId, "CreateProfileBody"),
  ProfileId,
  { reply: ListProfilesResponse, parameters: listParameters(ListProfilesRequest) }
) {}

const { id: _licenseId, ...licenseFields } = License.fields
export class LicensesRest extends resourceRest(
  "licenses",
  "license",
  "/licenses",
  reply("license", License, "LicenseReply"),
  bodyOf(licenseFields, LicenseId, "CreateLicenseBody", "`end` must be after `start`"),
  LicenseId,
  { reply: ListLicensesResponse, parameters: listParameters(ListLicensesRequest) }
) {}

export const workflowsPath = "/workflow/workflows/onboarding"

/** The first example a domain field declares. */
const exampleOf = ({ ast }: Schema.PropertySignature.All) =>
  examplesOf(ast._tag === "PropertySignatureDeclaration" ? ast : ast.to)[0]

/**
 * The body Swagger UI prefills for an onboarding, from the domain's examples of the same fields
 * (the body's schema is the request's encoded side, which keeps no annotations). With the
 * workflow id's example, the id the GET's example reads: a second "Execute" answers the first
 * run's result and creates nothing, and the prefilled GET finds that run.
 */
const onboardingExample = {
  workflowOptions: { workflowId: examplesOf(WorkflowId.ast)[0] },
  license: { start: exampleOf(License.fields.start), end: exampleOf(License.fields.end) },
  org: { name: exampleOf(Org.fields.name) },
  profile: { fullName: exampleOf(Profile.fields.fullName) }
} as unknown as typeof OnboardingRequest.Encoded

export class WorkflowsRest extends HttpApiGroup.make("workflows")
  .add(
    listEndpoint(
      "listOnboardingWorkflows",
      workflowsPath,
      ListOnboardingWorkflowsResponse,
      listParameters(ListOnboardingWorkflowsRequest)
    )
  )
  .add(
    HttpApiEndpoint.post("createOnboardingWorkflow", workflowsPath)
      .setPayload(
        documentedEncoded(OnboardingRequest).annotations({ identifier: "CreateOnboardingWorkflowBody", examples: [onboardingExample] })
      )
      .addSuccess(OnboardingResult).addError(RestErrors.AlreadyExists).middleware(JsonBodyReader).annotate(OpenApi.Summary, "CreateOnboardingWorkflow")
      .annotate(
        OpenApi.Description,
        "Creates an org, a profile in it and a license for that profile in one transaction. With workflowOptions.workflowId, a repeat answers with the first run's result."
      )
  )
  .add(
    HttpApiEndpoint.get("getOnboardingWorkflow", `${workflowsPath}/:id`).setPath(pathId(WorkflowId))
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
    .annotate(OpenApi.Transform, protoNamesDocumented)

export class OrgHttpApi extends port("org", "Org service", OrgsRest) {}
export class ProfileHttpApi extends port("profile", "Profile service", ProfilesRest) {}
export class LicenseHttpApi extends port("license", "License service", LicensesRest) {}
export class WorkflowHttpApi extends port("workflow", "Onboarding workflow service", WorkflowsRest) {}
