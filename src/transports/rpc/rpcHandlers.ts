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

export const OrgRpcHandlers = OrgRpcs.toLayer(Effect.gen(function*() {
  const orgs = yield* Orgs
  return {
    CreateOrg: (payload) => rpcCall(Effect.flatMap(validate(Org)(payload), orgs.create)),
    GetOrg: (payload) => rpcCall(Effect.flatMap(byId(OrgId)(payload), ({ id }) => orgs.get(id)))
  }
}))

export const ProfileRpcHandlers = ProfileRpcs.toLayer(Effect.gen(function*() {
  const profiles = yield* Profiles
  return {
    CreateProfile: (payload) => rpcCall(Effect.flatMap(validate(Profile)(payload), profiles.create)),
    GetProfile: (payload) => rpcCall(Effect.flatMap(byId(ProfileId)(payload), ({ id }) => profiles.get(id)))
  }
}))

export const LicenseRpcHandlers = LicenseRpcs.toLayer(Effect.gen(function*() {
  const licenses = yield* Licenses
  return {
    CreateLicense: (payload) => rpcCall(Effect.flatMap(validate(License)(payload), licenses.create)),
    GetLicense: (payload) => rpcCall(Effect.flatMap(byId(LicenseId)(payload), ({ id }) => licenses.get(id)))
  }
}))

export const WorkflowRpcHandlers = WorkflowRpcs.toLayer(Effect.gen(function*() {
  const onboarding = yield* Onboarding
  return {
    CreateOnboardingWorkflow: ({ workflowOptions, ...request }) =>
      rpcCall(Effect.flatMap(
        validate(OnboardingRequest)(workflowOptions?.workflowId ? { ...request, workflowOptions } : request),
        onboarding.create
      )),
    GetOnboardingWorkflow: ({ workflowId }) =>
      rpcCall(Effect.flatMap(validate(Schema.Struct({ workflowId: WorkflowId }))({ workflowId }), (p) =>
        onboarding.getRun(p.workflowId)))
  }
}))
