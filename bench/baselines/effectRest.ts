/**
 * Baseline (d): REST on the libraries issue 4 prescribes and nothing of ours. `@effect/platform`'s
 * HttpRouter served through `@effect/platform-node`'s handler, with `@effect/sql-pg` sending the
 * services' statements (effectStore.ts, shared with (f) and (g): the same text as (a)); the same
 * create semantics as (a), the workflow in one `withTransaction`. No schema validation, no error
 * table, no budget or retry: what any REST service on this stack pays before it does anything of
 * its own. Tracing is off, as in ours, unless OTEL_EXPORTER_OTLP_ENDPOINT (or ..._TRACES_ENDPOINT) asks for
 * it (effectStore.ts: peerLayer). Env: DATABASE_URL, PORT, DATABASE_POOL_SIZE (10).
 */
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Cause, Effect, ManagedRuntime } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { makeEffectStore, peerLayer, traced } from "./effectStore.js"
import type { Created } from "./store.js"

const runtime = ManagedRuntime.make(await peerLayer("d"))
const store = await runtime.runPromise(makeEffectStore)

type Body = Record<string, any>

const json = (body: unknown, status = 200) => HttpServerResponse.unsafeJson(body, { status })

const created = <A>(name: string, outcome: Created<A>) =>
  outcome.kind === "ok" ? json({ [name]: outcome.value }) : json({ code: 6 }, 409)

const resource = <A>(
  path: `/${string}`,
  name: string,
  get: (id: string) => Effect.Effect<A | undefined, unknown>,
  create: (id: string, body: Body) => Effect.Effect<Created<A>, unknown>
) => {
  const read = Effect.gen(function*() {
    const { id } = yield* HttpRouter.params
    const row = yield* get(id!)
    return row === undefined ? json({ code: 5 }, 404) : json({ [name]: row })
  })
  const write = Effect.gen(function*() {
    const { id } = yield* HttpRouter.params
    const body = (yield* (yield* HttpServerRequest.HttpServerRequest).json) as Body
    return created(name, yield* create(id!, body))
  })
  return [
    HttpRouter.get(`${path}/:id`, read),
    HttpRouter.post(`${path}/:id`, write),
    HttpRouter.put(`${path}/:id`, write)
  ] as const
}

const workflow = Effect.gen(function*() {
  const body = (yield* (yield* HttpServerRequest.HttpServerRequest).json) as Body
  const ids = yield* store.createWorkflow({
    orgName: body.org.name,
    fullName: body.profile.fullName ?? body.profile.full_name,
    start: body.license.start,
    end: body.license.end
  })
  return json(ids)
})

const routes = [
  ...resource("/orgs", "org", store.getOrg, (id, b) => store.createOrg({ id, name: b.name })),
  ...resource("/profiles", "profile", store.getProfile, (id, b) =>
    store.createProfile({ id, fullName: b.fullName ?? b.full_name, orgId: b.orgId ?? b.org_id })),
  ...resource("/licenses", "license", store.getLicense, (id, b) =>
    store.createLicense({ id, userId: b.userId ?? b.user_id, start: b.start, end: b.end })),
  HttpRouter.post("/workflow/workflows/onboarding", workflow)
]

const app = routes.reduce<HttpRouter.HttpRouter<any, any>>((router, route) => route(router), HttpRouter.empty).pipe(
  Effect.catchTag("RouteNotFound", () => Effect.succeed(json({ code: 5 }, 404))),
  // The answer and the log carry what the driver said too (SqlError's own message is generic).
  Effect.catchAllCause((cause) => {
    const error = Cause.squash(cause) as { readonly cause?: unknown }
    const message = error.cause === undefined ? String(error) : `${String(error)}: ${String(error.cause)}`
    console.error(`baseline (d): ${message}`)
    return Effect.succeed(json({ code: 13, message }, 500))
  })
)

// Traced (OTEL_EXPORTER_OTLP_ENDPOINT set), @effect/platform's defaults: its server span per
// request, with @effect/sql's `sql.execute` under it.
const handler = await runtime.runPromise(
  traced ? NodeHttpServer.makeHandler(app) : NodeHttpServer.makeHandler(app).pipe(
    Effect.withTracerEnabled(false),
    Effect.locally(HttpMiddleware.currentTracerDisabledWhen, () => true)
  )
)
const server = http.createServer(handler)
server.listen(Number(process.env["PORT"] ?? 0), "127.0.0.1", () => {
  console.log(`listening on ${(server.address() as AddressInfo).port}`)
})
process.on("SIGTERM", () => server.close(() => void runtime.dispose()))
