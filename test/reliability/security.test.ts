import { createClient, type Interceptor } from "@connectrpc/connect"
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { Health } from "../../src/gen/grpc/health/v1/health_pb.js"
import { OrgService } from "../../src/gen/org/v1beta1/org_pb.js"
import { Orgs } from "../../src/services/Orgs.js"
import { bearerCheck } from "../../src/transports/http/BearerAuth.js"
import { Services } from "../support/Services.js"
import { InMemoryServices, inProcessServers } from "../support/InProcessServers.js"
import { testDatabaseKind } from "../support/TestDatabase.js"

const token = "s3cret-token-for-tests"
const bearer = (value: string): Interceptor => (next) => (request) => {
  request.header.set("authorization", `Bearer ${value}`)
  return next(request)
}
const transports = {
  "Connect JSON": (baseUrl: string, interceptors: Array<Interceptor>) =>
    createConnectTransport({ baseUrl, httpVersion: "1.1", interceptors }),
  "Connect binary, HTTP/2": (baseUrl: string, interceptors: Array<Interceptor>) =>
    createConnectTransport({ baseUrl, httpVersion: "2", useBinaryFormat: true, interceptors }),
  "gRPC": (baseUrl: string, interceptors: Array<Interceptor>) => createGrpcTransport({ baseUrl, interceptors }),
  "gRPC-Web": (baseUrl: string, interceptors: Array<Interceptor>) =>
    createGrpcWebTransport({ baseUrl, httpVersion: "1.1", interceptors })
}

const codeOf = (call: Promise<unknown>) => call.then(() => "ok" as const, (e: { code?: number }) => e.code)

const httpCall = (url: string, init: { method?: string; body?: unknown; authorization?: string } = {}) =>
  fetch(url, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: {
      "content-type": "application/json",
      ...(init.authorization === undefined ? {} : { authorization: init.authorization })
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) })
  }).then(async (response) => ({ status: response.status, body: await response.json() as any, headers: response.headers }))

describe("bearer token check", () => {
  const check = bearerCheck(Option.some(Redacted.make(token)))!
  it("accepts exactly the configured token", () => {
    expect(check(`Bearer ${token}`)).toBe(true)
    expect(check(`bearer ${token}`)).toBe(true)
    for (const wrong of [undefined, "", token, `Bearer ${token}x`, `Bearer ${token.slice(0, -1)}`, `Basic ${token}`, "Bearer "]) {
      expect(check(wrong)).toBe(false)
    }
  })
  it("is off without a configured token", () => expect(bearerCheck(Option.none())).toBeUndefined())
})

describe(`authentication on every style (${testDatabaseKind})`, () => {
  layer(inProcessServers({ apiToken: Option.some(Redacted.make(token)) }), { timeout: 120_000, excludeTestServices: true })(
    (it) => {
      for (const [style, transport] of Object.entries(transports)) {
        it.effect(`${style}: no token or a wrong one is unauthenticated; the right one works`, () =>
          Effect.gen(function*() {
            const urls = yield* Services
            const org = { id: randomUUID(), name: "Guarded" }
            const call = (interceptors: Array<Interceptor>) =>
              codeOf(createClient(OrgService, transport(urls.org, interceptors)).createOrg(org))
            expect(yield* Effect.promise(() => call([]))).toBe(16)
            expect(yield* Effect.promise(() => call([bearer("wrong")]))).toBe(16)
            expect(yield* Effect.promise(() => call([bearer(token)]))).toBe("ok")
          }))
      }

      it.effect("REST, GraphQL and /rpc answer 401 in their own form; the token lets the call through", () =>
        Effect.gen(function*() {
          const urls = yield* Services
          const id = randomUUID()
          const rest = yield* Effect.promise(() => httpCall(`${urls.org}/orgs/${id}`, { method: "PUT", body: { name: "X" } }))
          expect(rest.status).toBe(401)
          expect(rest.headers.get("www-authenticate")).toBe("Bearer")
          expect(rest.body).toEqual({ code: 16, message: "missing or invalid bearer token", details: [] })
          // (Introspection alone, `{ __typename }`, is open by default: SCHEMA_ACCESS, schema-access.test.ts.)
          const graphql = yield* Effect.promise(() =>
            httpCall(`${urls.org}/graphql`, { body: { query: `{ org(id: "${id}") { org { name } } }` } })
          )
          expect(graphql.status).toBe(401)
          expect(graphql.body.errors[0].extensions.code).toBe("UNAUTHENTICATED")
          const rpc = yield* Effect.promise(() => httpCall(`${urls.org}/rpc`, { body: [] }))
          expect(rpc.status).toBe(401)

          const authorization = `Bearer ${token}`
          const allowed = yield* Effect.promise(() =>
            httpCall(`${urls.org}/orgs/${id}`, { method: "PUT", body: { name: "X" }, authorization })
          )
          expect(allowed.status).toBe(200)
          const query = yield* Effect.promise(() =>
            httpCall(`${urls.org}/graphql`, { body: { query: `{ org(id: "${id}") { org { name } } }` }, authorization })
          )
          expect(query.body).toEqual({ data: { org: { org: { name: "X" } } } })
        }))

      it.effect("a list is guarded like every call: without the token it is unauthenticated in every style", () =>
        Effect.gen(function*() {
          const urls = yield* Services
          const authorization = `Bearer ${token}`
          for (const [style, transport] of Object.entries(transports)) {
            const list = (interceptors: Array<Interceptor>) =>
              codeOf(createClient(OrgService, transport(urls.org, interceptors)).listOrgs({ pageSize: 1 }))
            expect({ style, code: yield* Effect.promise(() => list([])) }).toEqual({ style, code: 16 })
            expect({ style, code: yield* Effect.promise(() => list([bearer(token)])) }).toEqual({ style, code: "ok" })
          }
          const rest = yield* Effect.promise(() => httpCall(`${urls.org}/orgs?pageSize=1`))
          expect({ status: rest.status, body: rest.body }).toEqual({
            status: 401,
            body: { code: 16, message: "missing or invalid bearer token", details: [] }
          })
          expect((yield* Effect.promise(() => httpCall(`${urls.profile}/profiles`, { authorization }))).status).toBe(200)
          const query = { query: "{ licenses(pageSize: 1) { nextPageToken } }" }
          const graphql = yield* Effect.promise(() => httpCall(`${urls.license}/graphql`, { body: query }))
          expect(graphql.status).toBe(401)
          expect(graphql.body.errors[0].extensions.code).toBe("UNAUTHENTICATED")
          const allowed = yield* Effect.promise(() => httpCall(`${urls.license}/graphql`, { body: query, authorization }))
          expect(allowed.body.data.licenses).toEqual({ nextPageToken: expect.any(String) })
          const frame = { _tag: "Request", id: "1", tag: "ListOnboardingWorkflows", payload: {}, headers: [] }
          expect((yield* Effect.promise(() => httpCall(`${urls.workflow}/rpc`, { body: frame }))).status).toBe(401)
          const rpc = yield* Effect.promise(() => httpCall(`${urls.workflow}/rpc`, { body: frame, authorization }))
          expect(rpc.status).toBe(200)
        }))

      it.effect("health stays open: /healthz, /readyz and gRPC health need no token", () =>
        Effect.gen(function*() {
          const urls = yield* Services
          expect((yield* Effect.promise(() => fetch(`${urls.org}/healthz`))).status).toBe(200)
          expect((yield* Effect.promise(() => fetch(`${urls.org}/readyz`))).status).toBe(200)
          const health = createClient(Health, createGrpcTransport({ baseUrl: urls.org }))
          expect((yield* Effect.promise(() => health.check({ service: "" }))).status).toBe(1)
        }))
    }
  )
})

describe("CORS", () => {
  const preflight = (url: string, origin: string) =>
    fetch(`${url}/org.v1beta1.OrgService/CreateOrg`, {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type,connect-protocol-version,authorization"
      }
    })

  layer(inProcessServers({ corsOrigins: ["https://app.example"] }), { timeout: 120_000, excludeTestServices: true })(
    "with an allow-list",
    (it) => {
      it.effect("a listed origin gets a preflight with the Connect and gRPC-Web headers", () =>
        Effect.gen(function*() {
          const urls = yield* Services
          const response = yield* Effect.promise(() => preflight(urls.org, "https://app.example"))
          expect(response.status).toBe(204)
          expect(response.headers.get("access-control-allow-origin")).toBe("https://app.example")
          const allowed = response.headers.get("access-control-allow-headers")!.toLowerCase()
          for (const header of ["content-type", "connect-protocol-version", "x-grpc-web", "authorization"]) {
            expect(allowed).toContain(header)
          }
          const call = yield* Effect.promise(() =>
            fetch(`${urls.org}/healthz`, { headers: { origin: "https://app.example" } })
          )
          expect(call.headers.get("access-control-allow-origin")).toBe("https://app.example")
          expect(call.headers.get("access-control-expose-headers")!.toLowerCase()).toContain("grpc-status")
        }))

      it.effect("another origin gets no CORS headers, and its preflight is refused", () =>
        Effect.gen(function*() {
          const urls = yield* Services
          expect((yield* Effect.promise(() => preflight(urls.org, "https://evil.example"))).status).toBe(403)
          const call = yield* Effect.promise(() => fetch(`${urls.org}/healthz`, { headers: { origin: "https://evil.example" } }))
          expect(call.headers.get("access-control-allow-origin")).toBeNull()
        }))
    }
  )

  layer(inProcessServers(), { timeout: 120_000, excludeTestServices: true })("by default", (it) => {
    it.effect("is off: no CORS headers for any origin", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const response = yield* Effect.promise(() => preflight(urls.org, "https://app.example"))
        expect(response.headers.get("access-control-allow-origin")).toBeNull()
      }))
  })
})

describe("failures reveal nothing of the inside", () => {
  // A bug deep down: the defect's text holds SQL and a stack, which must stay in the log.
  const leakyOrgs = Layer.succeed(
    Orgs,
    Orgs.make({
      create: () => Effect.die(new Error("relation \"orgs\" violates check: SELECT * FROM orgs WHERE secret = 1")),
      get: () => Effect.die(new Error("relation \"orgs\" violates check: SELECT * FROM orgs WHERE secret = 1")),
      list: () => Effect.die(new Error("relation \"orgs\" violates check: SELECT * FROM orgs WHERE secret = 1"))
    })
  )
  const services = Layer.merge(InMemoryServices, leakyOrgs)

  layer(inProcessServers({}, services), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("every style answers a defect with 'internal error' and no SQL or stack trace", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const id = randomUUID()
        const answers: Array<string> = []
        for (const transport of Object.values(transports)) {
          const error = yield* Effect.promise(() =>
            createClient(OrgService, transport(urls.org, [])).getOrg({ id }).catch((e: { code: number; rawMessage: string }) => e)
          )
          expect((error as { code: number }).code).toBe(13)
          answers.push((error as { rawMessage: string }).rawMessage)
        }
        const rest = yield* Effect.promise(() => httpCall(`${urls.org}/orgs/${id}`))
        expect(rest.status).toBe(500)
        answers.push(JSON.stringify(rest.body))
        const graphql = yield* Effect.promise(() => httpCall(`${urls.org}/graphql`, { body: { query: `{ org(id: "${id}") { org { id } } }` } }))
        expect(graphql.body.errors[0].extensions.code).toBe("INTERNAL")
        answers.push(JSON.stringify(graphql.body))
        for (const answer of answers) {
          expect(answer).toContain("internal error")
          expect(answer).not.toMatch(/SELECT|secret|relation|\bat .*\.(ts|js)/)
        }
      }))
  })
})

describe("SQL", () => {
  const sourceFiles = (dir: string): Array<string> =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name)
      return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : []
    })

  it("is only ever built from parameterised statements (unsafe SQL only for the migration files)", () => {
    const root = new URL("../../src/", import.meta.url).pathname
    const unsafe = sourceFiles(root).filter((file) => readFileSync(file, "utf8").includes(".unsafe("))
    // Prepared.ts runs statements whose text is written once, their values always bound as $n
    // parameters; the next case holds every such text to a literal.
    expect(unsafe.map((file) => file.slice(root.length))).toEqual(["services/database/Migrations.ts", "services/records/Prepared.ts"])
  })

  it("gives prepared statements fixed text: literals of columns and the tables' declared columns, nothing else", () => {
    const root = new URL("../../src/", import.meta.url).pathname
    const sources = sourceFiles(root).map((file) => readFileSync(file, "utf8"))
    const texts = sources.flatMap((source) =>
      [...source.matchAll(/statements\.(?:rows|count)\(\s*(["`])([\s\S]*?)\1\s*\)/g)].map((m) => m[2]!)
    )
    // An insert or a select by key written by a table's declaration (SqlTable.ts): its columns,
    // the key's column, and $n for each value.
    const inserts = sources.flatMap((source) =>
      [...source.matchAll(/statements\.(?:rows|count)\(\s*[a-z][A-Za-z]*\.(?:insertUnlessPresent|selectBy)\("[a-z_]+"\)\s*\)/g)].map((m) => m[0])
    )
    expect(texts.length + inserts.length).toBeGreaterThanOrEqual(8)
    const interpolated = texts.flatMap((text) => [...text.matchAll(/\$\{([^}]*)\}/g)].map((m) => m[1]!))
    expect(interpolated.filter((expression) => !/^(utcText\("[a-z_]+"\)|createdAt|[a-z][A-Za-z]*\.selectList)$/.test(expression)))
      .toEqual([])
    // Every table's declaration names its columns as literals, or derives them from a domain
    // class's field names (domainTable, which refuses any name that is not [a-z][a-z0-9_]*).
    const declarations = sources.flatMap((source) => [...source.matchAll(/sqlTable\("[a-z_]+", (\{[\s\S]*?\n?\})\)/g)].map((m) => m[1]!))
    const derived = sources.flatMap((source) => [...source.matchAll(/domainTable\("[a-z_]+", [A-Z][A-Za-z]*(, \{[^}]*\})?\)/g)].map((m) => m[1] ?? ""))
    expect(declarations.length + derived.length).toBe(4)
    const column = /^\s*[a-zA-Z]+: ("[a-z_]+"|\{ column: "[a-z_]+", timestamp: true \}),?\s*$/
    for (const declaration of [...declarations, ...derived.filter((renamed) => renamed !== "").map((renamed) => renamed.slice(2))]) {
      const members = declaration.slice(1, -1).split(/,(?![^{]*\})/).filter((member) => member.trim() !== "")
      expect(members.filter((member) => !column.test(member)), declaration).toEqual([])
    }
    // Every call site is one of those.
    const calls = sources.reduce((n, source) => n + (source.match(/statements\.(?:rows|count)\(/g) ?? []).length, 0)
    expect(calls).toBe(texts.length + inserts.length)
  })
})
