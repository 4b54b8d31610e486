import { create } from "@bufbuild/protobuf"
import type { ServiceImpl } from "@connectrpc/connect"
import { Effect, Schema } from "effect"
import { WorkflowId } from "../../domain/Ids.js"
import { OnboardingRequest } from "../../domain/Onboarding.js"
import { validate } from "../../domain/Validation.js"
import {
  type CreateOnboardingWorkflowRequest,
  CreateOnboardingWorkflowResponseSchema,
  GetOnboardingWorkflowResponseSchema,
  type WorkflowService
} from "../../gen/workflow/v1beta1/workflow_pb.js"
import { Onboarding } from "../../services/Onboarding.js"
import type { EffectCall } from "./EffectCall.js"
import { present, timestampMessage, timestampText } from "./ProtoCodec.js"

const GetWorkflow = Schema.Struct({ workflowId: WorkflowId })

/** Proto3 cannot tell an empty workflow_id from an absent one; both mean "no idempotency key". */
const workflowRequest = (req: CreateOnboardingWorkflowRequest) =>
  present({
    workflowOptions: req.workflowOptions?.workflowId ? { workflowId: req.workflowOptions.workflowId } : undefined,
    license: req.license && present({ start: timestampText(req.license.start), end: timestampText(req.license.end) }),
    org: req.org && { name: req.org.name },
    profile: req.profile && { fullName: req.profile.fullName }
  })

export const workflowService = (call: EffectCall<Onboarding>): ServiceImpl<typeof WorkflowService> => ({
  createOnboardingWorkflow: (req, ctx) =>
    call(ctx, Effect.gen(function*() {
      const request = yield* validate(OnboardingRequest)(workflowRequest(req))
      const result = yield* (yield* Onboarding).create(request)
      return create(CreateOnboardingWorkflowResponseSchema, {
        workflowId: result.workflowId,
        orgId: result.orgId,
        profileId: result.profileId,
        licenseId: result.licenseId
      })
    })),

  getOnboardingWorkflow: (req, ctx) =>
    call(ctx, Effect.gen(function*() {
      const { workflowId } = yield* validate(GetWorkflow)({ workflowId: req.workflowId })
      const run = yield* (yield* Onboarding).getRun(workflowId)
      return create(GetOnboardingWorkflowResponseSchema, {
        workflow: {
          workflowId: run.workflowId,
          orgId: run.orgId,
          profileId: run.profileId,
          licenseId: run.licenseId,
          status: run.status,
          createdAt: timestampMessage(run.createdAt)
        }
      })
    }))
})
