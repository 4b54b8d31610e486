import { Schema } from "effect"
import { LicenseId, OrgId, ProfileId, WorkflowId } from "./Ids.js"
import { endsAfterStart } from "./License.js"
import { Name } from "./Name.js"
import { listRequest, optionalFilter, type PageQuery, pageQuery } from "./Page.js"
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

const WorkflowOptions = Schema.Struct({ workflowId: Schema.optionalWith(GivenWorkflowId, { exact: true }) }).annotations({
  identifier: "WorkflowOptions"
})

/** The request mirrors the wire nesting so that error paths read like the request (`org.name`). */
export class OnboardingRequest extends Schema.Class<OnboardingRequest>("OnboardingRequest")({
  workflowOptions: Schema.optionalWith(Schema.NullOr(WorkflowOptions), { exact: true }),
  license: Schema.Struct({ start: Timestamp, end: Timestamp }).pipe(endsAfterStart("license.start")),
  org: Schema.Struct({ name: Name }),
  profile: Schema.Struct({ fullName: Name })
}) {
  /** The caller's idempotency key, if one was given. */
  get workflowId(): WorkflowId | undefined {
    return this.workflowOptions?.workflowId || undefined
  }
}

export class OnboardingResult extends Schema.Class<OnboardingResult>("OnboardingResult")({
  workflowId: WorkflowId,
  orgId: OrgId,
  profileId: ProfileId,
  licenseId: LicenseId
}) {}

export const RunStatus = Schema.Literal("completed")
export type RunStatus = typeof RunStatus.Type

/** The durable record of one workflow run, written in the same transaction as its three rows. */
export class OnboardingRun extends Schema.Class<OnboardingRun>("OnboardingRun")({
  workflowId: WorkflowId,
  orgId: OrgId,
  profileId: ProfileId,
  licenseId: LicenseId,
  status: RunStatus,
  createdAt: Timestamp
}) {}

/**
 * A status to list by: text on the wire, as ids are, so that an unknown one is refused by the
 * service with its field's name (in every style, @effect/rpc's typed client included) rather than
 * by a client's own check of the wire shape.
 */
const StatusFilter = Schema.String.pipe(
  Schema.filter((status): status is RunStatus => (RunStatus.literals as ReadonlyArray<string>).includes(status), {
    message: () => `must be one of: ${RunStatus.literals.join(", ")}`
  })
)

/** Workflow runs, optionally only those with one status. */
export class ListOnboardingWorkflowsRequest
  extends Schema.Class<ListOnboardingWorkflowsRequest>("ListOnboardingWorkflowsRequest")(
    listRequest("workflows", { status: optionalFilter(StatusFilter) }, (request) => request.status || "")
  )
{
  get query(): PageQuery<RunStatus | undefined> {
    return pageQuery("workflows", this, this.status || undefined)
  }
}

export class ListOnboardingWorkflowsResponse
  extends Schema.Class<ListOnboardingWorkflowsResponse>("ListOnboardingWorkflowsResponse")({
    workflows: Schema.Array(OnboardingRun),
    nextPageToken: Schema.String
  })
{}
