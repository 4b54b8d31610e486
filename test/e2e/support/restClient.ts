import { type ClientStyle, type PageRequest, type ServiceUrls, type StyleClient, StyleError } from "./StyleClient.js"

/** Plain `fetch` against the REST paths of contract §5. */
const restClient = (urls: ServiceUrls): StyleClient => {
  const call = async (url: string, init?: { method: string; body: unknown }) => {
    const response = await fetch(url, init === undefined ? undefined : {
      method: init.method,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(init.body)
    })
    const body = await response.json() as Record<string, any>
    if (!response.ok) throw new StyleError(body["code"], body["message"])
    return body
  }
  // snake_case for the page parameters, camelCase for the filters: REST takes both spellings.
  const query = ({ pageSize, pageToken, ...filter }: PageRequest & { readonly orgId?: string; readonly userId?: string; readonly status?: string }) =>
    new URLSearchParams(
      Object.entries({ page_size: pageSize, page_token: pageToken, ...filter }).flatMap(([name, value]) =>
        value === undefined ? [] : [[name, String(value)] as [string, string]]
      )
    ).toString()
  const list = async (url: string, key: string) => {
    const body = await call(url)
    return { items: body[key], nextPageToken: body["nextPageToken"] }
  }
  return {
    style: "REST (fetch)",
    listOrgs: (page) => list(`${urls.org}/orgs?${query(page)}`, "orgs"),
    listProfiles: (page) => list(`${urls.profile}/profiles?${query(page)}`, "profiles"),
    listLicenses: (page) => list(`${urls.license}/licenses?${query(page)}`, "licenses"),
    listWorkflows: (page) => list(`${urls.workflow}/workflow/workflows/onboarding?${query(page)}`, "workflows"),
    createOrg: async ({ id, name }) => (await call(`${urls.org}/orgs/${id}`, { method: "PUT", body: { name } }))["org"],
    getOrg: async (id) => (await call(`${urls.org}/orgs/${id}`))["org"],
    // snake_case on the way in: REST accepts both spellings.
    createProfile: async ({ fullName, id, orgId }) =>
      (await call(`${urls.profile}/profiles/${id}`, { method: "POST", body: { full_name: fullName, org_id: orgId } }))[
        "profile"
      ],
    getProfile: async (id) => (await call(`${urls.profile}/profiles/${id}`))["profile"],
    createLicense: async ({ id, ...fields }) =>
      (await call(`${urls.license}/licenses/${id}`, { method: "PUT", body: { id, ...fields } }))["license"],
    getLicense: async (id) => (await call(`${urls.license}/licenses/${id}`))["license"],
    createWorkflow: async ({ workflowId, ...request }) =>
      (await call(`${urls.workflow}/workflow/workflows/onboarding`, {
        method: "POST",
        body: {
          ...(workflowId === undefined ? {} : { workflowOptions: { workflowId } }),
          license: request.license,
          org: request.org,
          profile: { full_name: request.profile.fullName }
        }
      })) as any,
    getWorkflow: async (id) => (await call(`${urls.workflow}/workflow/workflows/onboarding/${id}`))["workflow"]
  }
}

export const restStyle: ClientStyle = { style: "REST (fetch)", make: restClient }
