import { Effect, Schema } from "effect"
import { buildSchema } from "./graphqlJs.js"
import { WorkflowId } from "../../domain/Ids.js"
import { OnboardingRequest } from "../../domain/Onboarding.js"
import { validate } from "../../domain/Validation.js"
import { Onboarding } from "../../services/Onboarding.js"
import type { GraphqlApi } from "./GraphqlApi.js"

// The type, field and argument names are part of the wire contract (design §3.6).
const sdl = `
input WorkflowOptions { workflowId: String }
input LicenseInput { start: String!  end: String! }
input OrgInput { name: String! }
input ProfileInput { fullName: String! }
input CreateOnboardingWorkflowInput {
  workflowOptions: WorkflowOptions
  license: LicenseInput!
  org: OrgInput!
  profile: ProfileInput!
}
type CreateOnboardingWorkflowResponse { workflowId: String!  orgId: String!  profileId: String!  licenseId: String! }
type OnboardingWorkflow {
  workflowId: String!
  orgId: String!
  profileId: String!
  licenseId: String!
  status: String!
  createdAt: String!
}
type Query { onboardingWorkflow(id: ID!): OnboardingWorkflow }
type Mutation { createOnboardingWorkflow(input: CreateOnboardingWorkflowInput!): CreateOnboardingWorkflowResponse! }
`

const GetWorkflow = Schema.Struct({ id: WorkflowId })

/** The part of CreateOnboardingWorkflowInput read here; the rest is the domain's to check. */
interface WorkflowInput {
  readonly workflowOptions?: { readonly workflowId?: string | null } | null
}

/**
 * The domain request, nested like the wire so that messages name `license.end`. A null or empty
 * workflowId means "not given", as proto3's empty string does in the other styles.
 */
const onboardingRequest = (input: unknown) => {
  const { workflowOptions, ...request } = input as WorkflowInput
  const workflowId = workflowOptions?.workflowId
  return workflowId ? { ...request, workflowOptions: { workflowId } } : request
}

/** Replies are domain values: the GraphQL field names are the domain's. */
export const workflowGraphql: GraphqlApi<Onboarding> = {
  schema: buildSchema(sdl),
  operations: {
    onboardingWorkflow: (args) =>
      Effect.gen(function*() {
        const { id } = yield* validate(GetWorkflow)(args)
        return yield* (yield* Onboarding).getRun(id)
      }),

    createOnboardingWorkflow: (args) =>
      Effect.gen(function*() {
        const request = yield* validate(OnboardingRequest)(onboardingRequest(args["input"]))
        return yield* (yield* Onboarding).create(request)
      })
  }
}
