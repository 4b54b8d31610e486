/**
 * Baseline (g): the minimal Effect service for GraphQL, the anchor of what our own code costs on
 * top of Effect in that style (issue 28). graphql-js 16 over bare `node:http` on the same plumbing
 * as (e) (graphqlServer.ts: the services' schema, `parse` and `validate` once per query text, the
 * document kept, `execute` per call), whose resolvers run the services' statements on
 * `@effect/sql-pg` (effectStore.ts, shared with (d) and (f): `sql.unsafe` with the services' text,
 * the workflow in one `withTransaction`) through a `ManagedRuntime`, `runtime.runPromise` per call.
 * Tracing off, as the services run by default. Nothing of ours: no validation, no error table, no
 * budget, retries, limits or telemetry. Env: DATABASE_URL, PORT, DATABASE_POOL_SIZE (10).
 */
import { ManagedRuntime } from "effect"
import { makeEffectStore, pgLayer } from "./effectStore.js"
import { type Args, created, found, serveGraphql } from "./graphqlServer.js"

const runtime = ManagedRuntime.make(pgLayer)
const store = await runtime.runPromise(makeEffectStore)

serveGraphql({
  org: ({ id }: Args) => found("org", runtime.runPromise(store.getOrg(id))),
  createOrg: ({ input }: Args) => created("org", runtime.runPromise(store.createOrg({ id: input.id, name: input.name }))),
  profile: ({ id }: Args) => found("profile", runtime.runPromise(store.getProfile(id))),
  createProfile: ({ input }: Args) =>
    created(
      "profile",
      runtime.runPromise(store.createProfile({ id: input.id, fullName: input.fullName, orgId: input.orgId }))
    ),
  license: ({ id }: Args) => found("license", runtime.runPromise(store.getLicense(id))),
  createLicense: ({ input }: Args) =>
    created(
      "license",
      runtime.runPromise(store.createLicense({ id: input.id, userId: input.userId, start: input.start, end: input.end }))
    ),
  createOnboardingWorkflow: ({ input }: Args) =>
    runtime.runPromise(store.createWorkflow({
      orgName: input.org.name,
      fullName: input.profile.fullName,
      start: input.license.start,
      end: input.license.end
    }))
}, () => runtime.dispose())
