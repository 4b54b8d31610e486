import type * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect, Layer, Schema } from "effect"
import type { DomainError } from "../../domain/Errors.js"
import { License, ListLicensesResponse } from "../../domain/License.js"
import { ListOnboardingWorkflowsResponse, OnboardingResult, OnboardingRun } from "../../domain/Onboarding.js"
import { ListOrgsResponse, Org } from "../../domain/Org.js"
import { ListProfilesResponse, Profile } from "../../domain/Profile.js"
import { type LicenseHandlers, LicenseOperations } from "../../operations/LicenseOperations.js"
import { operation } from "../../operations/Operation.js"
import { type OrgHandlers, OrgOperations } from "../../operations/OrgOperations.js"
import { type ProfileHandlers, ProfileOperations } from "../../operations/ProfileOperations.js"
import { type WorkflowHandlers, WorkflowOperations } from "../../operations/WorkflowOperations.js"
import { LicenseHttpApi, OrgHttpApi, ProfileHttpApi, WorkflowHttpApi } from "./HttpApis.js"
import { type QueryParameters, queryRequest } from "./QueryRequest.js"
import { jsonObjectBody, withPathId } from "./RequestBody.js"
import { restCall } from "./RestCall.js"

/**
 * Each REST endpoint: the HTTP request -> an operation of the service's table -> the JSON reply.
 * Handlers are raw: the body is read here (jsonObjectBody: 415 unless JSON in UTF-8, 413 over the
 * limit without resetting the connection, proto names accepted beside JSON names), and every
 * outcome, refusals included, is answered by restCall with the one REST error body.
 */

/**
 * A page of a list, from its query parameters: the response message as JSON, every field
 * written, `nextPageToken` "" on the last page (docs/contract.md: REST writes what proto3 JSON
 * would leave out, so a client reads one shape).
 */
const listCall = <A, I, E extends DomainError, R>(
  model: Schema.Schema<A, I>,
  list: (input: unknown) => Effect.Effect<A, E, R>
) => {
  const json = Schema.encodeSync(model)
  return ({ urlParams }: { readonly urlParams: QueryParameters }) =>
    restCall(Effect.map(Effect.flatMap(queryRequest(urlParams), list), json))
}

/** Create under the path's id, and read back, for a resource answered as `{<key>: <record>}`. */
const resourceCalls = <A, I, E1 extends DomainError, R1, E2 extends DomainError, R2>(
  key: string,
  model: Schema.Schema<A, I>,
  create: (input: unknown) => Effect.Effect<A, E1, R1>,
  get: (input: unknown) => Effect.Effect<A, E2, R2>
) => {
  const json = Schema.encodeSync(model)
  const reply = (value: A) => ({ [key]: json(value) })
  return {
    create: ({ path }: { readonly path: { readonly id: string } }) =>
      restCall(Effect.gen(function*() {
        const body = yield* jsonObjectBody
        return reply(yield* create(yield* withPathId(body, path.id)))
      })),
    get: ({ path }: { readonly path: { readonly id: string } }) =>
      restCall(Effect.map(get({ id: path.id }), reply))
  }
}

const orgs = resourceCalls("org", Org, operation(OrgOperations, "CreateOrg"), operation(OrgOperations, "GetOrg"))
const OrgsLive = HttpApiBuilder.group(
  OrgHttpApi,
  "orgs",
  (handlers) =>
    handlers.handleRaw("listOrgs", listCall(ListOrgsResponse, operation(OrgOperations, "ListOrgs")))
      .handleRaw("getOrg", orgs.get).handleRaw("createOrg", orgs.create).handleRaw("putOrg", orgs.create)
)

const profiles = resourceCalls(
  "profile",
  Profile,
  operation(ProfileOperations, "CreateProfile"),
  operation(ProfileOperations, "GetProfile")
)
const ProfilesLive = HttpApiBuilder.group(
  ProfileHttpApi,
  "profiles",
  (handlers) =>
    handlers.handleRaw("listProfiles", listCall(ListProfilesResponse, operation(ProfileOperations, "ListProfiles")))
      .handleRaw("getProfile", profiles.get).handleRaw("createProfile", profiles.create).handleRaw(
      "putProfile",
      profiles.create
    )
)

const licenses = resourceCalls(
  "license",
  License,
  operation(LicenseOperations, "CreateLicense"),
  operation(LicenseOperations, "GetLicense")
)
const LicensesLive = HttpApiBuilder.group(
  LicenseHttpApi,
  "licenses",
  (handlers) =>
    handlers.handleRaw("listLicenses", listCall(ListLicensesResponse, operation(LicenseOperations, "ListLicenses")))
      .handleRaw("getLicense", licenses.get).handleRaw("createLicense", licenses.create).handleRaw(
      "putLicense",
      licenses.create
    )
)

const createWorkflow = operation(WorkflowOperations, "CreateOnboardingWorkflow")
const getWorkflow = operation(WorkflowOperations, "GetOnboardingWorkflow")
const resultJson = Schema.encodeSync(OnboardingResult)
const runJson = Schema.encodeSync(OnboardingRun)

const WorkflowsLive = HttpApiBuilder.group(
  WorkflowHttpApi,
  "workflows",
  (handlers) =>
    handlers
      .handleRaw(
        "listOnboardingWorkflows",
        listCall(ListOnboardingWorkflowsResponse, operation(WorkflowOperations, "ListOnboardingWorkflows"))
      )
      .handleRaw("createOnboardingWorkflow", () =>
        restCall(Effect.map(Effect.flatMap(jsonObjectBody, createWorkflow), resultJson)))
      .handleRaw("getOnboardingWorkflow", ({ path }) =>
        restCall(
          getWorkflow({ workflowId: path.id }).pipe(
            Effect.map((run) => ({ workflow: runJson(run) })),
            // The run's id is the path's `{id}` here: refusals name it so.
            Effect.catchTag("InvalidArgument", (invalid) => Effect.fail(invalid.renamed("workflowId", "id")))
          )
        ))
)

// The platform infers `unknown` for what raw handlers need; what these need is their table's handlers.
const live = <R>(api: Layer.Layer<HttpApi.Api, never, unknown>) => api as Layer.Layer<HttpApi.Api, never, R>

export const OrgRestLive = live<OrgHandlers>(HttpApiBuilder.api(OrgHttpApi).pipe(Layer.provide([OrgsLive])))
export const ProfileRestLive = live<ProfileHandlers>(
  HttpApiBuilder.api(ProfileHttpApi).pipe(Layer.provide([ProfilesLive]))
)
export const LicenseRestLive = live<LicenseHandlers>(
  HttpApiBuilder.api(LicenseHttpApi).pipe(Layer.provide([LicensesLive]))
)
export const WorkflowRestLive = live<WorkflowHandlers>(
  HttpApiBuilder.api(WorkflowHttpApi).pipe(Layer.provide([WorkflowsLive]))
)
