import type { GraphqlApi } from "./GraphqlApi.js"
import { licenseGraphql, orgGraphql, profileGraphql, workflowGraphql } from "./PortSchemas.js"

/**
 * The query GraphiQL opens with on each port (pages/Pages.ts): a ready call of the port's own
 * service, in the field names of its schema (PortSchemas.ts), that runs as it stands and answers
 * data (the newest records; an empty page on a new database). The comment names the port's
 * other fields. `test/transports/graphql-examples.test.ts` runs each against its port, so an
 * example cannot outlive a renamed field.
 */
export const exampleQueries: ReadonlyMap<GraphqlApi<unknown>, string> = new Map<GraphqlApi<unknown>, string>([
  [
    orgGraphql,
    `# Org service: the newest orgs.
# Run: ▶ or Ctrl-Enter. Every field: Docs
# (top left), e.g. org(id: "…"), createOrg.
query NewestOrgs {
  orgs(pageSize: 10) {
    orgs { id name }
    nextPageToken
  }
}
`
  ],
  [
    profileGraphql,
    `# Profile service: the newest profiles.
# Run: ▶ or Ctrl-Enter. Every field: Docs
# (top left), e.g. profile(id: "…"),
# profiles(orgId: "…"), createProfile.
query NewestProfiles {
  profiles(pageSize: 10) {
    profiles { id fullName orgId }
    nextPageToken
  }
}
`
  ],
  [
    licenseGraphql,
    `# License service: the newest licenses.
# Run: ▶ or Ctrl-Enter. Every field: Docs
# (top left), e.g. license(id: "…"),
# licenses(userId: "…"), createLicense.
query NewestLicenses {
  licenses(pageSize: 10) {
    licenses { id userId start end }
    nextPageToken
  }
}
`
  ],
  [
    workflowGraphql,
    `# Onboarding workflow service: the newest runs.
# Run: ▶ or Ctrl-Enter. Every field: Docs
# (top left), e.g. onboardingWorkflow(id: "…"),
# createOnboardingWorkflow (an org, a profile
# and a license, in one transaction).
query NewestOnboardingRuns {
  onboardingWorkflows(pageSize: 10) {
    workflows {
      workflowId orgId profileId licenseId
      status createdAt
    }
    nextPageToken
  }
}
`
  ]
])

/** The example query of a port's GraphQL API; a generic one for an API without its own. */
export const exampleQueryOf = (api: GraphqlApi<unknown>): string => exampleQueries.get(api) ?? "{ __typename }\n"
