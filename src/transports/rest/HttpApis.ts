import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { LicenseId, OrgId, ProfileId } from "../../domain/Ids.js"
import { License } from "../../domain/License.js"
import { OnboardingRequest, OnboardingResult, OnboardingRun } from "../../domain/Onboarding.js"
import { Org } from "../../domain/Org.js"
import { Profile } from "../../domain/Profile.js"

/**
 * The REST face of each port (contract §3.5), declared once: the server's routes, the OpenAPI
 * document at `/openapi.json` and the typed HttpApiClient all come from these. Bodies are the
 * domain's schemas in their JSON form; the handlers check them with the operations' own rules.
 */

/** Every REST error body: `{code: <gRPC code>, message, details: []}`. */
export const RestError = Schema.Struct({
  code: Schema.Int.annotations({ description: "the gRPC status code of the failure (3 invalid argument, 5 not found, ...)" }),
  message: Schema.String.annotations({ description: "what went wrong, naming the field where there is one" }),
  details: Schema.Array(Schema.Unknown)
}).annotations({ identifier: "Error" })

/** A body's fields as JSON (`{name}`); the id, if repeated there, must match the path's. */
const bodyOf = <Fields extends Schema.Struct.Fields>(fields: Fields, id: Schema.Schema.Any, identifier: string) =>
  Schema.Struct({ ...fields, id: Schema.optional(id) }).annotations({ identifier })

const reply = <K extends string, S extends Schema.Schema.Any>(key: K, schema: S, identifier: string) =>
  Schema.Struct({ [key]: schema } as { [P in K]: S }).annotations({ identifier })

/**
 * The path's id, taken as the caller wrote it: the operation checks it (a UUID) together with the
 * body's fields, so that every broken rule is reported at once, as in the other styles.
 */
const PathId = Schema.Struct({
  id: Schema.String.annotations({ description: "a UUID (8-4-4-4-12 hex digits)", jsonSchema: { format: "uuid" } })
})

const { id: _orgId, ...orgFields } = Org.fields
const OrgReply = reply("org", Org, "OrgReply")
const OrgBody = bodyOf(orgFields, OrgId, "CreateOrgBody")

export class OrgsRest extends HttpApiGroup.make("orgs")
    .add(
      HttpApiEndpoint.get("getOrg", "/orgs/:id").setPath(PathId).addSuccess(OrgReply)
        .addError(RestError, { status: 404 }).annotate(OpenApi.Summary, "GetOrg")
    )
    .add(
      HttpApiEndpoint.post("createOrg", "/orgs/:id").setPath(PathId).setPayload(OrgBody)
        .addSuccess(OrgReply).addError(RestError, { status: 409 }).addError(RestError, { status: 413 })
        .addError(RestError, { status: 415 }).annotate(OpenApi.Summary, "CreateOrg")
    )
    .add(
      HttpApiEndpoint.put("putOrg", "/orgs/:id").setPath(PathId).setPayload(OrgBody)
        .addSuccess(OrgReply).addError(RestError, { status: 409 }).addError(RestError, { status: 413 })
        .addError(RestError, { status: 415 }).annotate(OpenApi.Summary, "CreateOrg (PUT: the same)")
    )
{}

const { id: _profileId, ...profileFields } = Profile.fields
const ProfileReply = reply("profile", Profile, "ProfileReply")
const ProfileBody = bodyOf(profileFields, ProfileId, "CreateProfileBody")

export class ProfilesRest extends HttpApiGroup.make("profiles")
  .add(
    HttpApiEndpoint.get("getProfile", "/profiles/:id").setPath(PathId).addSuccess(ProfileReply)
      .addError(RestError, { status: 404 }).annotate(OpenApi.Summary, "GetProfile")
  )
  .add(
    HttpApiEndpoint.post("createProfile", "/profiles/:id").setPath(PathId).setPayload(ProfileBody)
      .addSuccess(ProfileReply).addError(RestError, { status: 409 }).addError(RestError, { status: 413 })
      .addError(RestError, { status: 415 }).annotate(OpenApi.Summary, "CreateProfile")
  )
  .add(
    HttpApiEndpoint.put("putProfile", "/profiles/:id").setPath(PathId).setPayload(ProfileBody)
      .addSuccess(ProfileReply).addError(RestError, { status: 409 }).addError(RestError, { status: 413 })
      .addError(RestError, { status: 415 }).annotate(OpenApi.Summary, "CreateProfile (PUT: the same)")
  )
{}

const { id: _licenseId, ...licenseFields } = License.fields
const LicenseReply = reply("license", License, "LicenseReply")
const LicenseBody = bodyOf(licenseFields, LicenseId, "CreateLicenseBody").annotations({
  description: "`end` must be after `start`"
})

export class LicensesRest extends HttpApiGroup.make("licenses")
  .add(
    HttpApiEndpoint.get("getLicense", "/licenses/:id").setPath(PathId).addSuccess(LicenseReply)
      .addError(RestError, { status: 404 }).annotate(OpenApi.Summary, "GetLicense")
  )
  .add(
    HttpApiEndpoint.post("createLicense", "/licenses/:id").setPath(PathId).setPayload(LicenseBody)
      .addSuccess(LicenseReply).addError(RestError, { status: 409 }).addError(RestError, { status: 413 })
      .addError(RestError, { status: 415 }).annotate(OpenApi.Summary, "CreateLicense")
  )
  .add(
    HttpApiEndpoint.put("putLicense", "/licenses/:id").setPath(PathId).setPayload(LicenseBody)
      .addSuccess(LicenseReply).addError(RestError, { status: 409 }).addError(RestError, { status: 413 })
      .addError(RestError, { status: 415 }).annotate(OpenApi.Summary, "CreateLicense (PUT: the same)")
  )
{}

export const workflowsPath = "/workflow/workflows/onboarding"

export class WorkflowsRest extends HttpApiGroup.make("workflows")
  .add(
    HttpApiEndpoint.post("createOnboardingWorkflow", workflowsPath)
      .setPayload(Schema.encodedSchema(OnboardingRequest).annotations({ identifier: "CreateOnboardingWorkflowBody" }))
      .addSuccess(OnboardingResult).addError(RestError, { status: 409 }).addError(RestError, { status: 413 })
      .addError(RestError, { status: 415 }).annotate(OpenApi.Summary, "CreateOnboardingWorkflow")
      .annotate(
        OpenApi.Description,
        "Creates an org, a profile in it and a license for that profile in one transaction. With workflowOptions.workflowId, a repeat answers with the first run's result."
      )
  )
  .add(
    HttpApiEndpoint.get("getOnboardingWorkflow", `${workflowsPath}/:id`).setPath(PathId)
      .addSuccess(reply("workflow", OnboardingRun, "OnboardingWorkflowReply")).addError(RestError, { status: 404 })
      .annotate(OpenApi.Summary, "GetOnboardingWorkflow")
  )
{}

/** A port's API: its group, what every call of it may answer besides its own errors, the token. */
const port = <Id extends string, Group extends HttpApiGroup.HttpApiGroup.Any>(id: Id, title: string, group: Group) =>
  HttpApi.make(id)
    .add(group)
    .addError(RestError, { status: 400 })
    .addError(RestError, { status: 401 })
    .addError(RestError, { status: 500 })
    .addError(RestError, { status: 503 })
    .annotate(OpenApi.Title, title)
    .annotate(OpenApi.Version, "v1beta1")

export class OrgHttpApi extends port("org", "Org service", OrgsRest) {}
export class ProfileHttpApi extends port("profile", "Profile service", ProfilesRest) {}
export class LicenseHttpApi extends port("license", "License service", LicensesRest) {}
export class WorkflowHttpApi extends port("workflow", "Onboarding workflow service", WorkflowsRest) {}
