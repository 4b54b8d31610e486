import { create } from "@bufbuild/protobuf"
import type { ServiceImpl } from "@connectrpc/connect"
import { Effect } from "effect"
import {
  type CreateOnboardingWorkflowRequest,
  CreateOnboardingWorkflowResponseSchema,
  GetOnboardingWorkflowResponseSchema,
  ListOnboardingWorkflowsResponseSchema,
  type WorkflowService
} from "../../gen/workflow/v1beta1/workflow_pb.js"
import { operation } from "../../operations/Operation.js"
import { type WorkflowHandlers, WorkflowOperations } from "../../operations/WorkflowOperations.js"
import type { EffectCall } from "./EffectCall.js"
import { present, runFields, timestampText } from "./ProtoCodec.js"

const createWorkflow = operation(WorkflowOperations, "CreateOnboardingWorkflow")
const getWorkflow = operation(WorkflowOperations, "GetOnboardingWorkflow")
const listWorkflows = operation(WorkflowOperations, "ListOnboardingWorkflows")

/** Unset message fields are left out, so the domain reports them as missing. */
const workflowRequest = (req: CreateOnboardingWorkflowRequest) =>
  present({
    workflowOptions: req.workflowOptions && { workflowId: req.workflowOptions.workflowId },
    license: req.license && present({ start: timestampText(req.license.start), end: timestampText(req.license.end) }),
    org: req.org && { name: req.org.name },
    profile: req.profile && { fullName: req.profile.fullName }
  })

export const workflowService = (call: EffectCall<WorkflowHandlers>): ServiceImpl<typeof WorkflowService> => ({
  createOnboardingWorkflow: (req, ctx) =>
    call(ctx, Effect.map(createWorkflow(workflowRequest(req)), (result) => create(CreateOnboardingWorkflowResponseSchema, result))),
  getOnboardingWorkflow: (req, ctx) =>
    call(
      ctx,
      Effect.map(getWorkflow({ workflowId: req.workflowId }), (run) =>
        create(GetOnboardingWorkflowResponseSchema, { workflow: runFields(run) }))
    ),
  listOnboardingWorkflows: (req, ctx) =>
    call(
      ctx,
      Effect.map(listWorkflows({ pageSize: req.pageSize, pageToken: req.pageToken, status: req.status }), (page) =>
        create(ListOnboardingWorkflowsResponseSchema, {
          workflows: page.workflows.map(runFields),
          nextPageToken: page.nextPageToken
        }))
    )
})
