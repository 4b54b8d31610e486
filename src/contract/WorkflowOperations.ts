import * as Rpc from "@effect/rpc/Rpc"
import * as RpcGroup from "@effect/rpc/RpcGroup"
import { Schema } from "effect"
import { described } from "../domain/Described.js"
import { AlreadyExists, InvalidArgument, NotFound, Unavailable } from "../domain/Errors.js"
import { WorkflowId } from "../domain/Ids.js"
import {
  ListOnboardingWorkflowsRequest,
  ListOnboardingWorkflowsResponse,
  OnboardingRequest,
  OnboardingResult,
  OnboardingRun
} from "../domain/Onboarding.js"
import type { OperationHandlers } from "./OperationHandlers.js"
import { OperationDescription, wireShape } from "./WireShape.js"

/** The payload that names one record. */
export const RunRef = Schema.Struct({ workflowId: described(WorkflowId, "the run's id (a UUID)") })

/** The onboarding workflow's operations, declared once for every style (see OrgOperations). */
export class WorkflowOperations extends RpcGroup.make(
  Rpc.make("CreateOnboardingWorkflow", {
    payload: wireShape(OnboardingRequest),
    success: OnboardingResult,
    error: Schema.Union(InvalidArgument, AlreadyExists, Unavailable)
  }).annotate(OperationDescription, "Creates an org, a profile in it and a license for that profile in one transaction; with a workflow id, a repeat answers the first run's result"),
  Rpc.make("GetOnboardingWorkflow", {
    payload: wireShape(RunRef),
    success: OnboardingRun,
    error: Schema.Union(InvalidArgument, NotFound, Unavailable)
  }).annotate(OperationDescription, "Reads one workflow run by its id"),
  Rpc.make("ListOnboardingWorkflows", {
    payload: wireShape(ListOnboardingWorkflowsRequest),
    success: ListOnboardingWorkflowsResponse,
    error: Schema.Union(InvalidArgument, Unavailable)
  }).annotate(OperationDescription, "Lists workflow runs, newest first, a page at a time, optionally only those with one status")
) {}

/** What a style adapter needs in its context to run these operations. */
export type WorkflowHandlers = OperationHandlers<RpcGroup.Rpcs<typeof WorkflowOperations>>
