import { create } from "@bufbuild/protobuf"
import { type Timestamp as TimestampMessage, TimestampSchema } from "@bufbuild/protobuf/wkt"
import type { License } from "../../domain/License.js"
import type { OnboardingRun } from "../../domain/Onboarding.js"
import type { Org } from "../../domain/Org.js"
import type { Profile } from "../../domain/Profile.js"
import { fromSecondsNanos, type Timestamp, toSecondsNanos } from "../../domain/Timestamp.js"

/**
 * Protobuf <-> domain. Incoming messages become plain objects for the domain's validation, with
 * unset message fields left out so they are reported as missing; outgoing domain values become
 * message init shapes.
 */

/** An out-of-range Timestamp is passed on as text the domain refuses with its usual message. */
export const timestampText = (ts: TimestampMessage | undefined): string | undefined =>
  ts === undefined ? undefined : fromSecondsNanos(ts.seconds, ts.nanos) ?? `${ts.seconds}s ${ts.nanos}ns`

export const timestampMessage = (t: Timestamp): TimestampMessage => create(TimestampSchema, toSecondsNanos(t))

/** Drops undefined members, so an absent field is "missing" to the domain rather than `undefined`. */
export const present = <T extends Record<string, unknown>>(fields: T): Partial<T> =>
  Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<T>

export const orgFields = (org: Org) => ({ id: org.id, name: org.name })

export const profileFields = (profile: Profile) => ({ id: profile.id, fullName: profile.fullName, orgId: profile.orgId })

export const licenseFields = (license: License) => ({
  id: license.id,
  userId: license.userId,
  start: timestampMessage(license.start),
  end: timestampMessage(license.end)
})

export const runFields = (run: OnboardingRun) => ({
  workflowId: run.workflowId,
  orgId: run.orgId,
  profileId: run.profileId,
  licenseId: run.licenseId,
  status: run.status,
  createdAt: timestampMessage(run.createdAt)
})
