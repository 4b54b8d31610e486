/**
 * Baseline (d): REST on the libraries issue 4 prescribes and nothing of ours. `@effect/platform`'s
 * HttpRouter served through `@effect/platform-node`'s handler, with `@effect/sql-pg` sending the
 * services' statements (the same text as (a)); the same create semantics as (a), the workflow in
 * one `withTransaction`. No schema validation, no error table, no budget or retry: what any REST
 * service on this stack pays before it does anything of its own. Tracing is off, as in ours.
 * Env: DATABASE_URL, PORT, DATABASE_POOL_SIZE (10).
 */
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, ManagedRuntime, Redacted } from "effect"
import { createHash, randomUUID } from "node:crypto"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { statements } from "./statements.js"
import { sameFields } from "./store.js"

const runtime = ManagedRuntime.make(PgClient.layer({
  url: Redacted.make(process.env["DATABASE_URL"] ?? ""),
  maxConnections: Number(process.env["DATABASE_POOL_SIZE"] ?? 10),
  applicationName: "bench-baseline"
}))

type Body = Record<string, any>

const json = (body: unknown, status = 200) => HttpServerResponse.unsafeJson(body, { status })

/** Insert; when the id is taken, read it back and compare, as the services and (a) do. */
const insertOrReplay = (
  name: string,
  insert: string,
  values: ReadonlyArray<unknown>,
  select: string,
  value: { readonly id: string }
) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    if ((yield* sql.unsafe(insert, values)).length === 1) return json({ [name]: value })
    const [stored] = yield* sql.unsafe<object>(select, [value.id])
    return stored !== undefined && sameFields(value, stored) ? json({ [name]: stored }) : json({ code: 6 }, 409)
  })

const resource = (
  path: `/${string}`,
  name: string,
  select: string,
  insert: string,
  valuesOf: (id: string, body: Body) => { readonly value: { readonly id: string }; readonly values: ReadonlyArray<unknown> }
) => {
  const get = Effect.gen(function*() {
    const { id } = yield* HttpRouter.params
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql.unsafe(select, [id])
    return row === undefined ? json({ code: 5 }, 404) : json({ [name]: row })
  })
  const create = Effect.gen(function*() {
    const { id } = yield* HttpRouter.params
    const body = (yield* (yield* HttpServerRequest.HttpServerRequest).json) as Body
    const { value, values } = valuesOf(id!, body)
    return yield* insertOrReplay(name, insert, values, select, value)
  })
  return [
    HttpRouter.get(`${path}/:id`, get),
    HttpRouter.post(`${path}/:id`, create),
    HttpRouter.put(`${path}/:id`, create)
  ] as const
}

const workflow = Effect.gen(function*() {
  const body = (yield* (yield* HttpServerRequest.HttpServerRequest).json) as Body
  const sql = yield* SqlClient.SqlClient
  const ids = { workflowId: randomUUID(), orgId: randomUUID(), profileId: randomUUID(), licenseId: randomUUID() }
  const fullName = body.profile.fullName ?? body.profile.full_name
  const fingerprint = createHash("sha256")
    .update(JSON.stringify([body.org.name, fullName, body.license.start, body.license.end]))
    .digest("hex")
  yield* sql.withTransaction(Effect.gen(function*() {
    yield* sql.unsafe(statements.claimRun, [ids.workflowId, ids.orgId, ids.profileId, ids.licenseId, fingerprint])
    yield* sql.unsafe(statements.insertOrg, [ids.orgId, body.org.name])
    yield* sql.unsafe(statements.insertProfile, [ids.profileId, fullName, ids.orgId])
    yield* sql.unsafe(statements.insertLicense, [ids.licenseId, ids.profileId, body.license.start, body.license.end])
  }))
  return json(ids)
})

const routes = [
  ...resource("/orgs", "org", statements.selectOrg, statements.insertOrg, (id, b) => ({
    value: { id, name: b.name },
    values: [id, b.name]
  })),
  ...resource("/profiles", "profile", statements.selectProfile, statements.insertProfile, (id, b) => {
    const value = { id, fullName: b.fullName ?? b.full_name, orgId: b.orgId ?? b.org_id }
    return { value, values: [id, value.fullName, value.orgId] }
  }),
  ...resource("/licenses", "license", statements.selectLicense, statements.insertLicense, (id, b) => {
    const value = { id, userId: b.userId ?? b.user_id, start: b.start, end: b.end }
    return { value, values: [id, value.userId, value.start, value.end] }
  }),
  HttpRouter.post("/workflow/workflows/onboarding", workflow)
]

const app = routes.reduce<HttpRouter.HttpRouter<any, any>>((router, route) => route(router), HttpRouter.empty).pipe(
  Effect.catchTag("RouteNotFound", () => Effect.succeed(json({ code: 5 }, 404))),
  Effect.catchAllCause((cause) => Effect.succeed(json({ code: 13, message: String(cause) }, 500)))
)

const handler = await runtime.runPromise(
  NodeHttpServer.makeHandler(app).pipe(
    Effect.withTracerEnabled(false),
    Effect.locally(HttpMiddleware.currentTracerDisabledWhen, () => true)
  )
)
const server = http.createServer(handler)
server.listen(Number(process.env["PORT"] ?? 0), "127.0.0.1", () => {
  console.log(`listening on ${(server.address() as AddressInfo).port}`)
})
process.on("SIGTERM", () => server.close(() => void runtime.dispose()))
