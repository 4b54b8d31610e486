import { type ClientStyle, type ServiceUrls, type StyleClient, StyleError } from "./StyleClient.js"

/** Plain `fetch` against the REST paths of contract §3.5. */
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
  return {
    style: "REST (fetch)",
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
