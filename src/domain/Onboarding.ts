import { Function, Option, Schema } from "effect"
import { createHash } from "node:crypto"
import { LicenseId, OrgId, ProfileId, WorkflowId } from "./Ids.js"
import { endsAfterStart } from "./License.js"
import { Name } from "./Name.js"
import { Timestamp } from "./Timestamp.js"

/**
 * Proto3 cannot tell an empty string or message from an absent one, and JSON and GraphQL clients
 * send `null` for "not given": in every style, a workflow id that is empty, null or left out
 * means none was given (the service generates one). The one place that rule is written.
 *
 * Any value passes the first step and the value that is not "absent" is then decoded by `schema`
 * itself, so a wrong value is reported by `schema` alone (a union with null would add a second,
 * confusing "Expected null" to every message). The encoded type is therefore exactly `I | null`.
 */
const absentWhen = <A, I>(schema: Schema.Schema<A, I>, isAbsent: (value: I | null) => boolean) =>
  Schema.optionalToOptional(Schema.Unknown as Schema.Schema<I | null>, schema, {
    decode: Option.filter((value): value is I => !isAbsent(value)),
    encode: Function.identity
  })

const WorkflowOptions = Schema.Struct({
  workflowId: absentWhen(WorkflowId, (id) => id === null || id === "")
})

/** The request mirrors the wire nesting so that error paths read like the request (`org.name`). */
export class OnboardingRequest extends Schema.Class<OnboardingRequest>("OnboardingRequest")({
  workflowOptions: absentWhen(WorkflowOptions, (options) => options === null),
  license: Schema.Struct({ start: Timestamp, end: Timestamp }).pipe(endsAfterStart("license.start")),
  org: Schema.Struct({ name: Name }),
  profile: Schema.Struct({ fullName: Name })
}) {
  get workflowId(): WorkflowId | undefined {
    return this.workflowOptions?.workflowId
  }

  /**
   * Identifies the request's content, so a retried workflow id can be told apart from a reused one.
   * Computed over the normalised values: `+01:00` and `Z` spellings of one instant are one request.
   */
  get fingerprint(): string {
    const content = [this.org.name, this.profile.fullName, this.license.start, this.license.end]
    return createHash("sha256").update(JSON.stringify(content)).digest("hex")
  }
}

export class OnboardingResult extends Schema.Class<OnboardingResult>("OnboardingResult")({
  workflowId: WorkflowId,
  orgId: OrgId,
  profileId: ProfileId,
  licenseId: LicenseId
}) {}

export const RunStatus = Schema.Literal("completed")

/** The durable record of one workflow run, written in the same transaction as its three rows. */
export class OnboardingRun extends Schema.Class<OnboardingRun>("OnboardingRun")({
  workflowId: WorkflowId,
  orgId: OrgId,
  profileId: ProfileId,
  licenseId: LicenseId,
  status: RunStatus,
  createdAt: Timestamp
}) {}
