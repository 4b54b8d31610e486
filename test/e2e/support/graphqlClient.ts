import { type ClientStyle, codeFromName, type ServiceUrls, type StyleClient, StyleError } from "./StyleClient.js"

/** Plain `fetch` POSTs to each port's `/graphql`, with the type names of contract §6. */
const graphqlClient = (urls: ServiceUrls): StyleClient => {
  const call = async (url: string, query: string, variables: Record<string, unknown>) => {
    const response = await fetch(`${url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/graphql-response+json" },
      body: JSON.stringify({ query, variables })
    })
    const body = await response.json() as { data?: Record<string, any> | null; errors?: Array<any> }
    const error = body.errors?.[0]
    if (error !== undefined) {
      throw new StyleError(codeFromName[String(error.extensions?.code).toLowerCase()] ?? 2, error.message)
    }
    return body.data!
  }
  const list = async (url: string, field: string, selection: string, variables: object, filter?: string) => {
    const declared = filter === undefined ? "" : `, $${filter}: String`
    const argument = filter === undefined ? "" : `, ${filter}: $${filter}`
    const key = { orgs: "orgs", profiles: "profiles", licenses: "licenses", onboardingWorkflows: "workflows" }[field]!
    const page = (await call(
      url,
      `query($pageSize: Int, $pageToken: String${declared}) {
        ${field}(pageSize: $pageSize, pageToken: $pageToken${argument}) { ${key} { ${selection} } nextPageToken }
      }`,
      variables as Record<string, unknown>
    ))[field]
    return { items: page[key], nextPageToken: page.nextPageToken }
  }
  return {
    style: "GraphQL (fetch)",
    listOrgs: (page) => list(urls.org, "orgs", "id name", page),
    listProfiles: (page) => list(urls.profile, "profiles", "id fullName orgId", page, "orgId"),
    listLicenses: (page) => list(urls.license, "licenses", "id userId start end", page, "userId"),
    listWorkflows: (page) =>
      list(urls.workflow, "onboardingWorkflows", "workflowId orgId profileId licenseId status createdAt", page, "status"),
    createOrg: async (input) =>
      (await call(urls.org, "mutation($input: CreateOrgInput!) { createOrg(input: $input) { org { id name } } }", { input }))
        .createOrg.org,
    getOrg: async (id) => (await call(urls.org, "query($id: ID!) { org(id: $id) { org { id name } } }", { id })).org.org,
    createProfile: async (input) =>
      (await call(
        urls.profile,
        "mutation($input: CreateProfileInput!) { createProfile(input: $input) { profile { id fullName orgId } } }",
        { input }
      )).createProfile.profile,
    getProfile: async (id) =>
      (await call(urls.profile, "query($id: ID!) { profile(id: $id) { profile { id fullName orgId } } }", { id })).profile
        .profile,
    createLicense: async (input) =>
      (await call(
        urls.license,
        "mutation($input: CreateLicenseInput!) { createLicense(input: $input) { license { id userId start end } } }",
        { input }
      )).createLicense.license,
    // An alias renames the result key (contract §6).
    getLicense: async (id) =>
      (await call(urls.license, "query($id: ID!) { found: license(id: $id) { license { id userId start end } } }", { id }))
        .found.license,
    createWorkflow: async ({ workflowId, ...request }) =>
      (await call(
        urls.workflow,
        `mutation($input: CreateOnboardingWorkflowInput!) {
          createOnboardingWorkflow(input: $input) { workflowId orgId profileId licenseId }
        }`,
        { input: { ...(workflowId === undefined ? {} : { workflowOptions: { workflowId } }), ...request } }
      )).createOnboardingWorkflow,
    getWorkflow: async (id) =>
      (await call(
        urls.workflow,
        "query($id: ID!) { onboardingWorkflow(id: $id) { workflowId orgId profileId licenseId status createdAt } }",
        { id }
      )).onboardingWorkflow ?? Promise.reject(new StyleError(5, `workflow ${id} not found`))
  }
}

export const graphqlStyle: ClientStyle = { style: "GraphQL (fetch)", make: graphqlClient }
