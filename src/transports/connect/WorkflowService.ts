import type { ServiceImpl } from "@connectrpc/connect"
import { WorkflowService } from "../../gen/workflow/v1beta1/workflow_pb.js"
import { operation } from "../../operations/Operation.js"
import { type WorkflowHandlers, WorkflowOperations } from "../../contract/WorkflowOperations.js"
import type { EffectCall } from "./EffectCall.js"
import { unary } from "./ProtoCodec.js"

export const workflowService = (call: EffectCall<WorkflowHandlers>): ServiceImpl<typeof WorkflowService> => {
  const method = unary(call)
  return {
    createOnboardingWorkflow: method(
      WorkflowService.method.createOnboardingWorkflow,
      operation(WorkflowOperations, "CreateOnboardingWorkflow")
    ),
    getOnboardingWorkflow: method(
      WorkflowService.method.getOnboardingWorkflow,
      operation(WorkflowOperations, "GetOnboardingWorkflow"),
      "workflow"
    ),
    listOnboardingWorkflows: method(
      WorkflowService.method.listOnboardingWorkflows,
      operation(WorkflowOperations, "ListOnboardingWorkflows")
    )
  }
}
