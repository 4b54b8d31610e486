import { Effect, Schema } from "effect"
import type { DomainError } from "../../domain/Errors.js"
import { LicenseId, OrgId, ProfileId, WorkflowId } from "../../domain/Ids.js"
import { License } from "../../domain/License.js"
import { OnboardingRequest } from "../../domain/Onboarding.js"
import { Org } from "../../domain/Org.js"
import { Profile } from "../../domain/Profile.js"
import { validate } from "../../domain/Validation.js"
import { Licenses } from "../../services/Licenses.js"
import { Onboarding } from "../../services/Onboarding.js"
import { Orgs } from "../../services/Orgs.js"
import { Profiles } from "../../services/Profiles.js"
import { LicenseRpcs } from "./LicenseRpcs.js"
import { OrgRpcs } from "./OrgRpcs.js"
import { ProfileRpcs } from "./ProfileRpcs.js"
import { WorkflowRpcs } from "./WorkflowRpcs.js"

/**
 * Typed domain errors travel to the RPC client as they are; a defect would travel with its
 * message (which may hold SQL or driver detail), so it is logged and replaced.
 */
const rpcCall = <A, E extends DomainError, R>(operation: Effect.Effect<A, E, R>) =>
  operation.pipe(
    Effect.tapDefect((cause) => Effect.logError("RPC call failed", cause)),
    Effect.catchAllDefect(() => Effect.die(new Error("internal error")))
  )

const byId = <Id>(id: Schema.Schema<Id, string>) => validate(Schema.Struct({ id }))

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * Proto3 has no "absent" for a string: a workflow id that is left out, empty or null means none
 * was given, as in the other styles. Anything else is left for the domain to judge.
 */
const withoutEmptyWorkflowId = (payload: unknown): unknown => {
  if (!isRecord(payload) || !isRecord(payload["workflowOptions"])) return payload
  const workflowId = payload["workflowOptions"]["workflowId"]
  if (workflowId !== undefined && workflowId !== null && workflowId !== "") return payload
  const { workflowOptions: _none, ...request } = payload
  return request
}

// Payloads arrive unchecked (CheckedPayload.ts): every handler takes them as unknown.

export const OrgRpcHandlers = OrgRpcs.toLayer(Effect.gen(function*() {
  const orgs = yield* Orgs
  return {
    CreateOrg: (payload: unknown) => rpcCall(Effect.flatMap(validate(Org)(payload), orgs.create)),
    GetOrg: (payload: unknown) => rpcCall(Effect.flatMap(byId(OrgId)(payload), ({ id }) => orgs.get(id)))
  }
}))

export const ProfileRpcHandlers = ProfileRpcs.toLayer(Effect.gen(function*() {
  const profiles = yield* Profiles
  return {
    CreateProfile: (payload: unknown) => rpcCall(Effect.flatMap(validate(Profile)(payload), profiles.create)),
    GetProfile: (payload: unknown) => rpcCall(Effect.flatMap(byId(ProfileId)(payload), ({ id }) => profiles.get(id)))
  }
}))

export const LicenseRpcHandlers = LicenseRpcs.toLayer(Effect.gen(function*() {
  const licenses = yield* Licenses
  return {
    CreateLicense: (payload: unknown) => rpcCall(Effect.flatMap(validate(License)(payload), licenses.create)),
    GetLicense: (payload: unknown) => rpcCall(Effect.flatMap(byId(LicenseId)(payload), ({ id }) => licenses.get(id)))
  }
}))

export const WorkflowRpcHandlers = WorkflowRpcs.toLayer(Effect.gen(function*() {
  const onboarding = yield* Onboarding
  return {
    CreateOnboardingWorkflow: (payload: unknown) =>
      rpcCall(Effect.flatMap(validate(OnboardingRequest)(withoutEmptyWorkflowId(payload)), onboarding.create)),
    GetOnboardingWorkflow: (payload: unknown) =>
      rpcCall(Effect.flatMap(validate(Schema.Struct({ workflowId: WorkflowId }))(payload), (p) =>
        onboarding.getRun(p.workflowId)))
  }
}))
