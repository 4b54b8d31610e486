import * as Rpc from "@effect/rpc/Rpc"
import * as RpcGroup from "@effect/rpc/RpcGroup"
import { Effect, Schema } from "effect"
import { AlreadyExists, InvalidArgument, NotFound, Unavailable } from "../domain/Errors.js"
import { WorkflowId } from "../domain/Ids.js"
import { OnboardingRequest, OnboardingResult, OnboardingRun } from "../domain/Onboarding.js"
import { Onboarding } from "../services/Onboarding.js"

/** The onboarding workflow's operations, declared once for every style (see OrgOperations). */
export class WorkflowOperations extends RpcGroup.make(
  Rpc.make("CreateOnboardingWorkflow", {
    payload: OnboardingRequest,
    success: OnboardingResult,
    error: Schema.Union(InvalidArgument, AlreadyExists, Unavailable)
  }),
  Rpc.make("GetOnboardingWorkflow", {
    payload: { workflowId: WorkflowId },
    success: OnboardingRun,
    error: Schema.Union(InvalidArgument, NotFound, Unavailable)
  })
) {}

export const WorkflowOperationsLive = WorkflowOperations.toLayer(Effect.gen(function*() {
  const onboarding = yield* Onboarding
  return {
    CreateOnboardingWorkflow: (request) => onboarding.create(request),
    GetOnboardingWorkflow: ({ workflowId }) => onboarding.getRun(workflowId)
  }
}))
