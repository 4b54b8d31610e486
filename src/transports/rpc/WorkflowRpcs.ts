import * as Rpc from "@effect/rpc/Rpc"
import * as RpcGroup from "@effect/rpc/RpcGroup"
import { Schema } from "effect"
import { AlreadyExists, InvalidArgument, NotFound, Unavailable } from "../../domain/Errors.js"
import { OnboardingResult, OnboardingRun } from "../../domain/Onboarding.js"
import { checkedByServer } from "./CheckedPayload.js"

/** The onboarding workflow over `@effect/rpc` at `/rpc` on the workflow port. */
export class WorkflowRpcs extends RpcGroup.make(
  Rpc.make("CreateOnboardingWorkflow", {
    payload: checkedByServer({
      workflowOptions: Schema.optional(Schema.Struct({ workflowId: Schema.optional(Schema.String) })),
      license: Schema.Struct({ start: Schema.String, end: Schema.String }),
      org: Schema.Struct({ name: Schema.String }),
      profile: Schema.Struct({ fullName: Schema.String })
    }),
    success: OnboardingResult,
    error: Schema.Union(InvalidArgument, AlreadyExists, Unavailable)
  }),
  Rpc.make("GetOnboardingWorkflow", {
    payload: checkedByServer({ workflowId: Schema.String }),
    success: OnboardingRun,
    error: Schema.Union(InvalidArgument, NotFound, Unavailable)
  })
) {}
