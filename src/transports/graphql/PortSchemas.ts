import { Effect } from "effect"
import { LicenseOperations } from "../../operations/LicenseOperations.js"
import { operation } from "../../operations/Operation.js"
import { OrgOperations } from "../../operations/OrgOperations.js"
import { ProfileOperations } from "../../operations/ProfileOperations.js"
import { type WorkflowHandlers, WorkflowOperations } from "../../operations/WorkflowOperations.js"
import type { GraphqlApi } from "./GraphqlApi.js"
import { describedSchema } from "./Descriptions.js"
import { buildSchema } from "./GraphqlJs.js"
import { resourceGraphql } from "./ResourceGraphql.js"

// The type, field and argument names of each port's schema are part of the wire contract (contract §3.6).

export const orgGraphql = resourceGraphql({
  sdl: `
type Org { id: ID!  name: String! }
type GetOrgResponse { org: Org! }
type CreateOrgResponse { org: Org! }
input CreateOrgInput { id: ID!  name: String! }
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
type Profile { id: ID!  fullName: String!  orgId: String! }
type GetProfileResponse { profile: Profile! }
type CreateProfileResponse { profile: Profile! }
input CreateProfileInput { id: ID!  fullName: String!  orgId: String! }
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
type License { id: ID!  start: String!  end: String!  userId: String! }
type GetLicenseResponse { license: License! }
type CreateLicenseResponse { license: License! }
input CreateLicenseInput { id: ID!  start: String!  end: String!  userId: String! }
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
type ListOnboardingWorkflowsResponse { workflows: [OnboardingWorkflow!]!  nextPageToken: String! }
type Query {
  onboardingWorkflow(id: ID!): OnboardingWorkflow
  onboardingWorkflows(pageSize: Int, pageToken: String, status: String): ListOnboardingWorkflowsResponse!
}
type Mutation { createOnboardingWorkflow(input: CreateOnboardingWorkflowInput!): CreateOnboardingWorkflowResponse! }
`),
    {
      onboardingWorkflow: { rpc: WorkflowOperations.requests.get("GetOnboardingWorkflow")!, renamed: { id: "workflowId" } },
      onboardingWorkflows: { rpc: WorkflowOperations.requests.get("ListOnboardingWorkflows")! },
      createOnboardingWorkflow: { rpc: WorkflowOperations.requests.get("CreateOnboardingWorkflow")! }
    }
  ),
  operations: {
    // The run's id is the argument `id` here: refusals name it so.
    onboardingWorkflow: (args) =>
      getWorkflow({ workflowId: args["id"] }).pipe(
        Effect.catchTag("InvalidArgument", (invalid) => Effect.fail(invalid.renamed("workflowId", "id")))
      ),
    createOnboardingWorkflow: (args) => createWorkflow(args["input"]),
    onboardingWorkflows: listWorkflows
  }
}
