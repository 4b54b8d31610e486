import { Effect } from "effect"
import { License } from "../../domain/License.js"
import { OnboardingRequest, OnboardingResult, OnboardingRun, WorkflowOptions } from "../../domain/Onboarding.js"
import { Org } from "../../domain/Org.js"
import { Profile } from "../../domain/Profile.js"
import { LicenseOperations } from "../../contract/LicenseOperations.js"
import { operation, rpcOf } from "../../operations/Operation.js"
import { OrgOperations } from "../../contract/OrgOperations.js"
import { ProfileOperations } from "../../contract/ProfileOperations.js"
import { type WorkflowHandlers, WorkflowOperations } from "../../contract/WorkflowOperations.js"
import { type GraphqlApi, payloadArgument } from "./GraphqlApi.js"
import { describedSchema } from "./Descriptions.js"
import { buildSchema } from "./GraphqlJs.js"
import { resourceGraphql } from "./ResourceGraphql.js"
import { sdlFields } from "./SdlFields.js"

// The type, field and argument names of each port's schema are part of the wire contract (contract §6).
// A record's fields are written from its domain schema (sdlFields); the rest names how they nest.

export const orgGraphql = resourceGraphql({
  sdl: `
type Org { ${sdlFields(Org)} }
type GetOrgResponse { org: Org! }
type CreateOrgResponse { org: Org! }
input CreateOrgInput { ${sdlFields(Org)} }
type ListOrgsResponse { orgs: [Org!]!  nextPageToken: String! }
type Query {
  org(id: ID!): GetOrgResponse
  orgs(pageSize: Int, pageToken: String): ListOrgsResponse!
}
type Mutation { createOrg(input: CreateOrgInput!): CreateOrgResponse! }
`,
  name: "org",
  table: OrgOperations,
  get: "GetOrg",
  create: "CreateOrg",
  list: { field: "orgs", operation: "ListOrgs" }
})

export const profileGraphql = resourceGraphql({
  sdl: `
type Profile { ${sdlFields(Profile)} }
type GetProfileResponse { profile: Profile! }
type CreateProfileResponse { profile: Profile! }
input CreateProfileInput { ${sdlFields(Profile)} }
type ListProfilesResponse { profiles: [Profile!]!  nextPageToken: String! }
type Query {
  profile(id: ID!): GetProfileResponse
  profiles(pageSize: Int, pageToken: String, orgId: String): ListProfilesResponse!
}
type Mutation { createProfile(input: CreateProfileInput!): CreateProfileResponse! }
`,
  name: "profile",
  table: ProfileOperations,
  get: "GetProfile",
  create: "CreateProfile",
  list: { field: "profiles", operation: "ListProfiles" }
})

export const licenseGraphql = resourceGraphql({
  sdl: `
type License { ${sdlFields(License)} }
type GetLicenseResponse { license: License! }
type CreateLicenseResponse { license: License! }
input CreateLicenseInput { ${sdlFields(License)} }
type ListLicensesResponse { licenses: [License!]!  nextPageToken: String! }
type Query {
  license(id: ID!): GetLicenseResponse
  licenses(pageSize: Int, pageToken: String, userId: String): ListLicensesResponse!
}
type Mutation { createLicense(input: CreateLicenseInput!): CreateLicenseResponse! }
`,
  name: "license",
  table: LicenseOperations,
  get: "GetLicense",
  create: "CreateLicense",
  list: { field: "licenses", operation: "ListLicenses" }
})

const createWorkflow = operation(WorkflowOperations, "CreateOnboardingWorkflow")
const getWorkflow = operation(WorkflowOperations, "GetOnboardingWorkflow")
const listWorkflows = operation(WorkflowOperations, "ListOnboardingWorkflows")

/** The workflow's input nests like the wire, so that messages name `license.end`. */
export const workflowGraphql: GraphqlApi<WorkflowHandlers> = {
  schema: describedSchema(
    buildSchema(`
input WorkflowOptions { ${sdlFields(WorkflowOptions)} }
input LicenseInput { ${sdlFields(OnboardingRequest.fields.license)} }
input OrgInput { ${sdlFields(OnboardingRequest.fields.org)} }
input ProfileInput { ${sdlFields(OnboardingRequest.fields.profile)} }
input CreateOnboardingWorkflowInput {
  workflowOptions: WorkflowOptions
  license: LicenseInput!
  org: OrgInput!
  profile: ProfileInput!
}
type CreateOnboardingWorkflowResponse { ${sdlFields(OnboardingResult)} }
type OnboardingWorkflow { ${sdlFields(OnboardingRun)} }
type ListOnboardingWorkflowsResponse { workflows: [OnboardingWorkflow!]!  nextPageToken: String! }
type Query {
  onboardingWorkflow(id: ID!): OnboardingWorkflow
  onboardingWorkflows(pageSize: Int, pageToken: String, status: String): ListOnboardingWorkflowsResponse!
}
type Mutation { createOnboardingWorkflow(input: CreateOnboardingWorkflowInput!): CreateOnboardingWorkflowResponse! }
`),
    {
      onboardingWorkflow: { rpc: rpcOf(WorkflowOperations, "GetOnboardingWorkflow"), renamed: { id: "workflowId" } },
      onboardingWorkflows: { rpc: rpcOf(WorkflowOperations, "ListOnboardingWorkflows") },
      createOnboardingWorkflow: { rpc: rpcOf(WorkflowOperations, "CreateOnboardingWorkflow") }
    }
  ),
  operations: {
    // The run's id is the argument `id` here: refusals name it so.
    onboardingWorkflow: (args) =>
      getWorkflow({ workflowId: args["id"] }).pipe(
        Effect.catchTag("InvalidArgument", (invalid) => Effect.fail(invalid.renamed("workflowId", "id")))
      ),
    createOnboardingWorkflow: (args) => createWorkflow(args[payloadArgument]),
    onboardingWorkflows: listWorkflows
  }
}
