import { Schema, Struct } from "effect"
import { described, record } from "./Described.js"
import { LicenseId, OrgId, ProfileId, WorkflowId } from "./Ids.js"
import { endsAfterStart, License } from "./License.js"
import { Org } from "./Org.js"
import { listRequest, nextPageToken, optionalFilter, type PageQuery, pageQuery } from "./Page.js"
import { Profile } from "./Profile.js"
import { Timestamp } from "./Timestamp.js"

/**
 * Proto3 cannot tell an empty string or message from an absent one, and JSON and GraphQL clients
 * send `null` for "not given": in every style, a workflow id that is empty, null or left out
 * means none was given (the service generates one). `OnboardingRequest.workflowId` is the one
 * place that reads it. (Written as values the request may hold rather than as a decoding step
 * that drops them: a step on the request's fields would run only after every other field had
 * passed, and so hide this field's error whenever another field had one.)
 */
const GivenWorkflowId = Schema.Union(WorkflowId, Schema.Literal(""), Schema.Null)

export const WorkflowOptions = Schema.Struct({
  workflowId: Schema.optionalWith(GivenWorkflowId, { exact: true }).annotations({
    description: "the caller's idempotency key (a UUID): a repeat with the same request answers the first run; absent, empty or null: the service makes one"
  })
}).annotations({ identifier: "WorkflowOptions", description: "How the workflow runs" })

/**
 * What the workflow is given of each record: the record's own fields, less those the workflow
 * fills in (the ids it makes, the links between the three). Derived, so a field added to a record
 * reaches the workflow with its rule and its description, in every style.
 */
export const OnboardingOrg = Schema.Struct(Struct.omit(Org.fields, "id")).annotations({
  identifier: "OnboardingOrg",
  description: "The org to create"
})
export const OnboardingProfile = Schema.Struct(Struct.omit(Profile.fields, "id", "orgId")).annotations({
  identifier: "OnboardingProfile",
  description: "The profile to create in the new org"
})
export const OnboardingLicense = Schema.Struct(Struct.omit(License.fields, "id", "userId")).pipe(endsAfterStart("license.start"))
  .annotations({ identifier: "OnboardingLicense", description: "The license the new profile is given" })

/** The request mirrors the wire nesting so that error paths read like the request (`org.name`). */
export class OnboardingRequest extends Schema.Class<OnboardingRequest>("OnboardingRequest")({
  workflowOptions: Schema.optionalWith(Schema.NullOr(WorkflowOptions), { exact: true }).annotations({
    description: "how the workflow runs (its idempotency key); may be left out"
  }),
  license: OnboardingLicense,
  org: OnboardingOrg,
  profile: OnboardingProfile
}, record("OnboardingRequest", "An org, a profile in it and a license for that profile, created in one transaction")) {
  /** The caller's idempotency key, if one was given. */
  get workflowId(): WorkflowId | undefined {
    return this.workflowOptions?.workflowId || undefined
  }
}

/** The ids an onboarding made: every one always written. */
const madeIds = {
  workflowId: described(WorkflowId, "the run's id: the caller's idempotency key, or the one the service made"),
  orgId: described(OrgId, "the org the run created"),
  profileId: described(ProfileId, "the profile the run created, in that org"),
  licenseId: described(LicenseId, "the license the run created, held by that profile")
}

export class OnboardingResult extends Schema.Class<OnboardingResult>("OnboardingResult")(madeIds, record("OnboardingResult", "What an onboarding created")) {}

export const RunStatus = Schema.Literal("completed")
export type RunStatus = typeof RunStatus.Type

/** The durable record of one workflow run, written in the same transaction as its three rows. */
export class OnboardingRun extends Schema.Class<OnboardingRun>("OnboardingRun")({
  ...madeIds,
  status: described(RunStatus, "completed: a run is recorded with its three records, never before"),
  createdAt: described(Timestamp, "when the run committed, in UTC")
}, record("OnboardingRun", "The durable record of one onboarding run")) {}

/**
 * A status to list by: text on the wire, as ids are, so that an unknown one is refused by the
 * service with its field's name (in every style, @effect/rpc's typed client included) rather than
 * by a client's own check of the wire shape.
 */
const runStatuses: ReadonlyArray<string> = RunStatus.literals

const StatusFilter = Schema.String.pipe(
  Schema.filter((status): status is RunStatus => runStatuses.includes(status), {
    message: () => `must be one of: ${RunStatus.literals.join(", ")}`,
    // The same values, for documents (OpenAPI's `status` parameter); the filter above is the rule.
    jsonSchema: { enum: RunStatus.literals }
  })
)

/** Workflow runs, optionally only those with one status. */
export class ListOnboardingWorkflowsRequest
  extends Schema.Class<ListOnboardingWorkflowsRequest>("ListOnboardingWorkflowsRequest")(
    listRequest(
      "workflows",
      { status: optionalFilter(StatusFilter, "only the runs with this status (completed)") },
      (request) => request.status || ""
    ),
    record("ListOnboardingWorkflowsRequest", "Workflow runs, newest first, a page at a time")
  )
{
  get query(): PageQuery<RunStatus | undefined> {
    return pageQuery("workflows", this, this.status || undefined)
  }
}

export class ListOnboardingWorkflowsResponse
  extends Schema.Class<ListOnboardingWorkflowsResponse>("ListOnboardingWorkflowsResponse")({
    workflows: described(Schema.Array(OnboardingRun), "this page of runs, newest first"),
    nextPageToken
  }, record("ListOnboardingWorkflowsResponse", "A page of workflow runs"))
{}
