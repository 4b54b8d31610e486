/**
 * Baseline (e): GraphQL as a careful user would write it by hand on graphql-js 16, the peer of our
 * GraphQL style. Bare `node:http`, graphql-js `parse`, `validate` and `execute`, the parsed and
 * validated document kept by its query text, the services' schema (graphqlServer.ts, shared with
 * (g)); resolvers on the root value calling the same `pg` store as (a) and (b) (store.ts: same
 * statements, same pool size). Env: DATABASE_URL, PORT, DATABASE_POOL_SIZE (10).
 */
import { type Args, created, found, serveGraphql } from "./graphqlServer.js"
import { openStore } from "./store.js"

const store = openStore(process.env["DATABASE_URL"] ?? "", Number(process.env["DATABASE_POOL_SIZE"] ?? 10))

serveGraphql({
  org: ({ id }: Args) => found("org", store.getOrg(id)),
  createOrg: ({ input }: Args) => created("org", store.createOrg({ id: input.id, name: input.name })),
  profile: ({ id }: Args) => found("profile", store.getProfile(id)),
  createProfile: ({ input }: Args) =>
    created("profile", store.createProfile({ id: input.id, fullName: input.fullName, orgId: input.orgId })),
  license: ({ id }: Args) => found("license", store.getLicense(id)),
  createLicense: ({ input }: Args) =>
    created("license", store.createLicense({ id: input.id, userId: input.userId, start: input.start, end: input.end })),
  createOnboardingWorkflow: ({ input }: Args) =>
    store.createWorkflow({
      orgName: input.org.name,
      fullName: input.profile.fullName,
      start: input.license.start,
      end: input.license.end
    })
}, () => store.close())
