import { Effect } from "effect"
import { ListOnboardingWorkflowsResponse } from "../domain/Onboarding.js"
import { Onboarding } from "../services/Onboarding.js"
import { operationsLayer } from "./Operation.js"
import { WorkflowOperations } from "../contract/WorkflowOperations.js"

/** The handlers of WorkflowOperations, over the Onboarding service. */
export const WorkflowOperationsLive = operationsLayer(WorkflowOperations, Effect.gen(function*() {
  const onboarding = yield* Onboarding
  return {
    CreateOnboardingWorkflow: onboarding.create,
    GetOnboardingWorkflow: ({ workflowId }) => onboarding.getRun(workflowId),
    ListOnboardingWorkflows: (request) =>
      Effect.map(
        onboarding.listRuns(request.query),
        (page) => new ListOnboardingWorkflowsResponse({ workflows: page.items, nextPageToken: page.nextPageToken })
      )
  }
}))
