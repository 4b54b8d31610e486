/**
 * Baseline (g): the minimal Effect service for GraphQL, the anchor of what our own code costs on
 * top of Effect in that style (issue 28). graphql-js 16 over bare `node:http` on the same plumbing
 * as (e) (graphqlServer.ts: the services' schema, `parse` and `validate` once per query text, the
 * document kept, `execute` per call), whose resolvers run the services' statements on
 * `@effect/sql-pg` (effectStore.ts, shared with (d) and (f): `sql.unsafe` with the services' text,
 * the workflow in one `withTransaction`) through a `ManagedRuntime`, `runtime.runPromise` per call.
 * Tracing off, as the services run by default, unless OTEL_EXPORTER_OTLP_ENDPOINT (or
 * ..._TRACES_ENDPOINT) asks for it (effectStore.ts: peerLayer; `run` below). Nothing of ours: no validation, no error table, no
 * budget, retries, limits or telemetry. Env: DATABASE_URL, PORT, DATABASE_POOL_SIZE (10).
 */
import { Effect, ManagedRuntime } from "effect"
import { makeEffectStore, peerLayer, traced } from "./effectStore.js"
import { type Args, created, found, serveGraphql } from "./graphqlServer.js"

const runtime = ManagedRuntime.make(await peerLayer("g"))
const store = await runtime.runPromise(makeEffectStore)

/**
 * A root field's Effect, run to a promise. Traced, bare `node:http` and graphql-js make no span, so
 * the field (the one field of each measured call) gets the server span an Effect service on them
 * would make itself (`Effect.withSpan`), with @effect/sql's `sql.execute` under it; untraced,
 * nothing is added.
 */
const run = <A, E>(field: string, effect: Effect.Effect<A, E>): Promise<A> =>
  runtime.runPromise(
    traced
      ? Effect.withSpan(effect, "POST /graphql", {
        kind: "server",
        attributes: { "http.request.method": "POST", "http.route": "/graphql", "graphql.field.name": field }
      })
      : effect
  )

serveGraphql({
  org: ({ id }: Args) => found("org", run("org", store.getOrg(id))),
  createOrg: ({ input }: Args) => created("org", run("createOrg", store.createOrg({ id: input.id, name: input.name }))),
  profile: ({ id }: Args) => found("profile", run("profile", store.getProfile(id))),
  createProfile: ({ input }: Args) =>
    created(
      "profile",
      run("createProfile", store.createProfile({ id: input.id, fullName: input.fullName, orgId: input.orgId }))
    ),
  license: ({ id }: Args) => found("license", run("license", store.getLicense(id))),
  createLicense: ({ input }: Args) =>
    created(
      "license",
      run("createLicense", store.createLicense({ id: input.id, userId: input.userId, start: input.start, end: input.end }))
    ),
  createOnboardingWorkflow: ({ input }: Args) =>
    run("createOnboardingWorkflow", store.createWorkflow({
      orgName: input.org.name,
      fullName: input.profile.fullName,
      start: input.license.start,
      end: input.license.end
    }))
}, () => runtime.dispose())
