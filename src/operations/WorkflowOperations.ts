import * as Rpc from "@effect/rpc/Rpc"
import * as RpcGroup from "@effect/rpc/RpcGroup"
import { Schema } from "effect"
import { AlreadyExists, InvalidArgument, NotFound, Unavailable } from "../domain/Errors.js"
import { WorkflowId } from "../domain/Ids.js"
import {
  ListOnboardingWorkflowsRequest,
  ListOnboardingWorkflowsResponse,
  OnboardingRequest,
  OnboardingResult,
  OnboardingRun
} from "../domain/Onboarding.js"
import type { OperationHandlers } from "./Operation.js"
import { wireShape } from "./WireShape.js"

/** The payload that names one record. */
export const RunRef = Schema.Struct({ workflowId: WorkflowId })

/** The onboarding workflow's operations, declared once for every style (see OrgOperations). */
export class WorkflowOperations extends RpcGroup.make(
  Rpc.make("CreateOnboardingWorkflow", {
    payload: wireShape(OnboardingRequest),
    success: OnboardingResult,
    error: Schema.Union(InvalidArgument, AlreadyExists, Unavailable)
  }),
  Rpc.make("GetOnboardingWorkflow", {
    payload: wireShape(RunRef),
    success: OnboardingRun,
    error: Schema.Union(InvalidArgument, NotFound, Unavailable)
  }),
  Rpc.make("ListOnboardingWorkflows", {
    payload: wireShape(ListOnboardingWorkflowsRequest),
    success: ListOnboardingWorkflowsResponse,
    error: Schema.Union(InvalidArgument, Unavailable)
  })
) {}

/** What a style adapter needs in its context to run these operations. */
export type WorkflowHandlers = OperationHandlers<RpcGroup.Rpcs<typeof WorkflowOperations>>
