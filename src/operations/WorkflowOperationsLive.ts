import { Effect } from "effect"
import { ListOnboardingWorkflowsRequest, ListOnboardingWorkflowsResponse, OnboardingRequest } from "../domain/Onboarding.js"
import { Onboarding } from "../services/Onboarding.js"
import { operationsLayer, validated } from "./Operation.js"
import { RunRef, WorkflowOperations } from "./WorkflowOperations.js"

/** The handlers of WorkflowOperations, over the Onboarding service. */
export const WorkflowOperationsLive = operationsLayer(WorkflowOperations, Effect.gen(function*() {
  const onboarding = yield* Onboarding
  return {
    CreateOnboardingWorkflow: validated(OnboardingRequest, onboarding.create),
    GetOnboardingWorkflow: validated(RunRef, ({ workflowId }) => onboarding.getRun(workflowId)),
    ListOnboardingWorkflows: validated(ListOnboardingWorkflowsRequest, (request) =>
      Effect.map(
        onboarding.listRuns(request.query),
        (page) => new ListOnboardingWorkflowsResponse({ workflows: page.items, nextPageToken: page.nextPageToken })
      ))
  }
}))
