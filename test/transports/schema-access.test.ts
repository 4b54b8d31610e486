import { create } from "@bufbuild/protobuf"
import { createClient, type Interceptor } from "@connectrpc/connect"
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node"
import { describe, expect, it as plainIt, layer } from "@effect/vitest"
import { Cause, ConfigProvider, Effect, Option, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import * as reflectionV1 from "../../src/gen/grpc/reflection/v1/reflection_pb.js"
import * as reflectionV1alpha from "../../src/gen/grpc/reflection/v1alpha/reflection_pb.js"
import { OrgService } from "../../src/gen/org/v1beta1/org_pb.js"
import { settings } from "../../src/main/Settings.js"
import { startupLine } from "../../src/main/StartupFailure.js"
import { introspectionOnly } from "../../src/transports/graphql/IntrospectionOnly.js"
import { parse } from "../../src/transports/graphql/GraphqlJs.js"
import { type SchemaAccess, tokenlessInFlight } from "../../src/transports/http/BearerAuth.js"
import { Services } from "../support/Services.js"
import { inProcessServers } from "../support/InProcessServers.js"
import { h2Session, neverEndingRequest } from "../reliability/support/slowStreams.js"

/**
 * SCHEMA_ACCESS with API_TOKEN set: the schema documents (GET /openapi.json, gRPC server reflection
 * v1 and v1alpha, GraphQL introspection) answer without the token when it is `open` (the default),
 * and only with it when it is `token`; every other call needs the token either way.
 */

const token = "schema-access-token"
const authorization = `Bearer ${token}`

const bearer = (value: string): Interceptor => (next) => (request) => {
  request.header.set("authorization", `Bearer ${value}`)
  return next(request)
}

const get = (url: string, headers: Record<string, string> = {}) =>
  fetch(url, { headers }).then(async (r) => ({ status: r.status, headers: r.headers, body: await r.text() }))

const graphql = (url: string, query: string, headers: Record<string, string> = {}, operationName?: string) =>
  fetch(`${url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ query, ...(operationName === undefined ? {} : { operationName }) })
  }).then(async (r) => ({ status: r.status, headers: r.headers, body: await r.json() as any }))

/** The services reflection lists over gRPC, or the gRPC code it fails with. */
const listServices = (url: string, version: "v1" | "v1alpha", interceptors: Array<Interceptor> = []) => {
  const transport = createGrpcTransport({ baseUrl: url, interceptors })
  const ask = async (): Promise<ReadonlyArray<string>> => {
    if (version === "v1") {
      const client = createClient(reflectionV1.ServerReflection, transport)
      const requests = async function*() {
        yield create(reflectionV1.ServerReflectionRequestSchema, { messageRequest: { case: "listServices", value: "*" } })
      }
      for await (const answer of client.serverReflectionInfo(requests())) {
        if (answer.messageResponse.case === "listServicesResponse") return answer.messageResponse.value.service.map((s) => s.name)
      }
    } else {
      const client = createClient(reflectionV1alpha.ServerReflection, transport)
      const requests = async function*() {
        yield create(reflectionV1alpha.ServerReflectionRequestSchema, { messageRequest: { case: "listServices", value: "*" } })
      }
      for await (const answer of client.serverReflectionInfo(requests())) {
        if (answer.messageResponse.case === "listServicesResponse") return answer.messageResponse.value.service.map((s) => s.name)
      }
    }
    return []
  }
  return ask().catch((error: { code?: number }) => error.code ?? String(error))
}

const createOrgCode = (url: string, interceptors: Array<Interceptor> = []) =>
  createClient(OrgService, createConnectTransport({ baseUrl: url, httpVersion: "1.1", interceptors }))
    .createOrg({ id: randomUUID(), name: "Guarded" })
    .then(() => "ok" as const, (e: { code?: number }) => e.code)

const unauthenticatedGraphql = {
  status: 401,
  body: { errors: [{ message: "missing or invalid bearer token", extensions: { code: "UNAUTHENTICATED" } }] }
}

const introspection = "query IntrospectionQuery { __schema { queryType { name } types { name } } }"
const servicesOnOrg = [
  "org.v1beta1.OrgService",
  "grpc.health.v1.Health",
  "grpc.reflection.v1.ServerReflection",
  "grpc.reflection.v1alpha.ServerReflection"
].sort()

// Rates far above what these tests send (introspection-bounds.test.ts tests the rate).
const withToken = (schemaAccess: SchemaAccess) =>
  inProcessServers({ apiToken: Option.some(Redacted.make(token)), schemaAccess, schemaAccessRate: 10_000, schemaAccessRatePerAddress: 10_000 })

describe("SCHEMA_ACCESS=open (the default) with API_TOKEN: the schema documents are open, nothing else", () => {
  layer(withToken("open"), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("GET /openapi.json answers 200 without the token", () =>
      Effect.gen(function*() {
        const { org } = yield* Services
        const reply = yield* Effect.promise(() => get(`${org}/openapi.json`))
        expect(reply.status).toBe(200)
        expect(JSON.parse(reply.body).openapi).toMatch(/^3\.1/)
      }))

    it.effect("gRPC reflection, v1 and v1alpha, lists the services without the token", () =>
      Effect.gen(function*() {
        const { org } = yield* Services
        for (const version of ["v1", "v1alpha"] as const) {
          const listed = yield* Effect.promise(() => listServices(org, version))
          expect({ version, listed: Array.isArray(listed) ? [...listed].sort() : listed }).toEqual({ version, listed: servicesOnOrg })
        }
      }))

    it.effect("GraphQL introspection answers without the token (POST and GET)", () =>
      Effect.gen(function*() {
        const { org } = yield* Services
        const posted = yield* Effect.promise(() => graphql(org, introspection))
        expect(posted.status).toBe(200)
        expect(posted.body.data.__schema.queryType.name).toBe("Query")
        const typename = yield* Effect.promise(() => get(`${org}/graphql?query=${encodeURIComponent("{ __typename }")}`))
        expect({ status: typename.status, body: JSON.parse(typename.body) }).toEqual({ status: 200, body: { data: { __typename: "Query" } } })
        const type = yield* Effect.promise(() => graphql(org, `{ __type(name: "Org") { name } }`))
        expect(type.body).toEqual({ data: { __type: { name: "Org" } } })
        // The introspection operation of several, picked by its name.
        const picked = yield* Effect.promise(() =>
          graphql(org, `query Data { orgs(pageSize: 1) { nextPageToken } } query Schema { __typename }`, {}, "Schema")
        )
        expect(picked.body).toEqual({ data: { __typename: "Query" } })
      }))

    it.effect("any other GraphQL operation is refused as without SCHEMA_ACCESS: 401, UNAUTHENTICATED, WWW-Authenticate", () =>
      Effect.gen(function*() {
        const { org } = yield* Services
        const refused = [
          `{ org(id: "${randomUUID()}") { org { name } } }`,
          // Introspection beside a call is a call.
          `{ __typename orgs(pageSize: 1) { nextPageToken } }`,
          // A call in a fragment, spread or inline.
          `{ ...F } fragment F on Query { orgs(pageSize: 1) { nextPageToken } }`,
          `{ ... on Query { __typename orgs(pageSize: 1) { nextPageToken } } }`,
          `mutation { createOrg(input: { id: "${randomUUID()}", name: "Sneaky" }) { org { id } } }`,
          // Several operations and no name, or a name that picks the call.
          `query A { __typename } query B { orgs(pageSize: 1) { nextPageToken } }`,
          // Not a document.
          `{ __typename`
        ]
        for (const query of refused) {
          const reply = yield* Effect.promise(() => graphql(org, query))
          expect({ query, status: reply.status, body: reply.body }).toEqual({ query, ...unauthenticatedGraphql })
          expect(reply.headers.get("www-authenticate")).toBe("Bearer")
        }
        const named = yield* Effect.promise(() =>
          graphql(org, `query A { __typename } query B { orgs(pageSize: 1) { nextPageToken } }`, {}, "B")
        )
        expect({ status: named.status, body: named.body }).toEqual(unauthenticatedGraphql)
        // A body that is not JSON gets the same refusal (it cannot be introspection).
        const notJson = yield* Effect.promise(() =>
          fetch(`${org}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: "{" })
            .then(async (r) => ({ status: r.status, body: await r.json() }))
        )
        expect(notJson).toEqual(unauthenticatedGraphql)
        // With the token the same operations run.
        const allowed = yield* Effect.promise(() => graphql(org, `{ orgs(pageSize: 1) { nextPageToken } }`, { authorization }))
        expect(allowed.status).toBe(200)
        expect(allowed.body.data.orgs).toBeDefined()
      }))

    it.effect("REST and Connect calls are refused as before: 401 and unauthenticated", () =>
      Effect.gen(function*() {
        const { org } = yield* Services
        const rest = yield* Effect.promise(() => get(`${org}/orgs/${randomUUID()}`))
        expect({ status: rest.status, body: JSON.parse(rest.body) }).toEqual({
          status: 401,
          body: { code: 16, message: "missing or invalid bearer token", details: [] }
        })
        expect(rest.headers.get("www-authenticate")).toBe("Bearer")
        expect(yield* Effect.promise(() => createOrgCode(org))).toBe(16)
        expect(yield* Effect.promise(() => createOrgCode(org, [bearer(token)]))).toBe("ok")
      }))
  })
})

describe("SCHEMA_ACCESS=token with API_TOKEN: the schema documents need the token like any call", () => {
  layer(withToken("token"), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("GET /openapi.json: 401 without the token, 200 with it", () =>
      Effect.gen(function*() {
        const { org } = yield* Services
        const refused = yield* Effect.promise(() => get(`${org}/openapi.json`))
        expect({ status: refused.status, body: JSON.parse(refused.body) }).toEqual({
          status: 401,
          body: { code: 16, message: "missing or invalid bearer token", details: [] }
        })
        expect((yield* Effect.promise(() => get(`${org}/openapi.json`, { authorization }))).status).toBe(200)
      }))

    it.effect("gRPC reflection, v1 and v1alpha: unauthenticated without the token, lists the services with it", () =>
      Effect.gen(function*() {
        const { org } = yield* Services
        for (const version of ["v1", "v1alpha"] as const) {
          expect({ version, answer: yield* Effect.promise(() => listServices(org, version)) }).toEqual({ version, answer: 16 })
          const listed = yield* Effect.promise(() => listServices(org, version, [bearer(token)]))
          expect({ version, listed: Array.isArray(listed) ? [...listed].sort() : listed }).toEqual({ version, listed: servicesOnOrg })
        }
      }))

    it.effect("GraphQL introspection: 401 without the token, answered with it", () =>
      Effect.gen(function*() {
        const { org } = yield* Services
        const refused = yield* Effect.promise(() => graphql(org, introspection))
        expect({ status: refused.status, body: refused.body }).toEqual(unauthenticatedGraphql)
        const typename = yield* Effect.promise(() => get(`${org}/graphql?query=${encodeURIComponent("{ __typename }")}`))
        expect(typename.status).toBe(401)
        const allowed = yield* Effect.promise(() => graphql(org, introspection, { authorization }))
        expect(allowed.status).toBe(200)
        expect(allowed.body.data.__schema.queryType.name).toBe("Query")
      }))

    it.effect("REST and Connect calls: refused without the token, answered with it", () =>
      Effect.gen(function*() {
        const { org } = yield* Services
        expect((yield* Effect.promise(() => get(`${org}/orgs?pageSize=1`))).status).toBe(401)
        expect((yield* Effect.promise(() => get(`${org}/orgs?pageSize=1`, { authorization }))).status).toBe(200)
        expect(yield* Effect.promise(() => createOrgCode(org))).toBe(16)
        expect(yield* Effect.promise(() => createOrgCode(org, [bearer(token)]))).toBe("ok")
      }))
  })
})

describe("SCHEMA_ACCESS, read at start", () => {
  const read = (environment: Record<string, string>) =>
    Effect.withConfigProvider(settings, ConfigProvider.fromMap(new Map(Object.entries(environment))))

  plainIt.effect("is open unless set; open and token in any case are taken", () =>
    Effect.gen(function*() {
      expect((yield* read({})).schemaAccess).toBe("open")
      expect((yield* read({ SCHEMA_ACCESS: "" })).schemaAccess).toBe("open")
      expect((yield* read({ SCHEMA_ACCESS: "token" })).schemaAccess).toBe("token")
      expect((yield* read({ SCHEMA_ACCESS: "Open" })).schemaAccess).toBe("open")
    }))

  plainIt.effect("a bad value stops the process with one line naming the variable", () =>
    Effect.gen(function*() {
      const error = yield* read({ SCHEMA_ACCESS: "closed" }).pipe(Effect.flip)
      expect(startupLine("org", Cause.fail(error))).toBe("org: SCHEMA_ACCESS=closed is not valid: must be one of open, token")
    }))
})

describe("introspection only", () => {
  const only = (query: string, operationName?: string) => introspectionOnly(parse(query), operationName)
  plainIt("is a document whose operation asks __schema, __type and __typename alone, through fragments too", () => {
    expect(only("{ __typename }")).toBe(true)
    expect(only("{ a: __schema { types { name } } __type(name: \"Org\") { name } }")).toBe(true)
    expect(only("{ ...F } fragment F on Query { __schema { queryType { name } } }")).toBe(true)
    expect(only("{ ...F ...F } fragment F on Query { __typename }")).toBe(true)
    expect(only("query A { __typename } query B { orgs { nextPageToken } }", "A")).toBe(true)
    expect(only("{ orgs { nextPageToken } }")).toBe(false)
    expect(only("{ ...F } fragment F on Query { ...G } fragment G on Query { orgs { nextPageToken } }")).toBe(false)
    expect(only("{ ...Missing }")).toBe(false)
    expect(only("query A { __typename } query B { orgs { nextPageToken } }")).toBe(false)
    expect(only("query A { __typename } query B { orgs { nextPageToken } }", "B")).toBe(false)
    expect(only("query A { __typename }", "C")).toBe(false)
  })
})

describe("SCHEMA_ACCESS=open: a token-less GraphQL request is read, within bounds", () => {
  layer(withToken("open"), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("one whose body never ends over HTTP/2 is refused within about 2 s, and the stream ended NO_ERROR", () =>
      Effect.gen(function*() {
        const { org } = yield* Services
        const session = yield* Effect.promise(() => h2Session(org))
        const outcome = yield* Effect.promise(() =>
          neverEndingRequest(session, { ":path": "/graphql", "content-type": "application/json" }, { first: "{\"query\":\"", giveUpAfter: 8_000 })
        )
        session.destroy()
        expect({ status: outcome.status, gaveUp: outcome.gaveUp, rstCode: outcome.rstCode }).toEqual({ status: 401, gaveUp: false, rstCode: 0 })
        expect(JSON.parse(outcome.body.toString("utf8"))).toEqual(unauthenticatedGraphql.body)
        expect(outcome.answeredAfter).toBeGreaterThanOrEqual(1_900)
        expect(outcome.answeredAfter).toBeLessThan(5_000)
      }))

    it.effect("one larger than 64 KiB is refused as unauthenticated, however it starts", () =>
      Effect.gen(function*() {
        const { org } = yield* Services
        const query = `{ __typename ${"__typename ".repeat(7_000)}}`
        const reply = yield* Effect.promise(() => graphql(org, query))
        expect({ status: reply.status, body: reply.body }).toEqual(unauthenticatedGraphql)
      }))

    it.effect(`at most ${tokenlessInFlight} calls without the token at once: then 401, while calls with the token go on`, () =>
      Effect.gen(function*() {
        const { org } = yield* Services
        const session = yield* Effect.promise(() => h2Session(org))
        // Reflection streams that never send a request: each holds its place until it ends.
        const held = Array.from({ length: tokenlessInFlight }, () =>
          session.request({
            ":method": "POST",
            ":path": `/${reflectionV1.ServerReflection.typeName}/ServerReflectionInfo`,
            "content-type": "application/grpc",
            te: "trailers"
          })
        )
        for (const stream of held) stream.on("error", () => {})
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 300)))
        expect((yield* Effect.promise(() => get(`${org}/openapi.json`))).status).toBe(401)
        expect((yield* Effect.promise(() => get(`${org}/openapi.json`, { authorization }))).status).toBe(200)
        expect(yield* Effect.promise(() => createOrgCode(org, [bearer(token)]))).toBe("ok")
        for (const stream of held) stream.close()
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 300)))
        session.destroy()
        expect((yield* Effect.promise(() => get(`${org}/openapi.json`))).status).toBe(200)
      }))
  })
})
