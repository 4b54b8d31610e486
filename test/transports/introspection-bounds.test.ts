import { describe, expect, it as plainIt, layer } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import * as http from "node:http"
import { buildClientSchema, type IntrospectionQuery, printSchema } from "graphql/index.js"
import { orgGraphql } from "../../src/transports/graphql/PortSchemas.js"
import { maxSchemaFields, maxTypeFields } from "../../src/transports/limits/IntrospectionRoots.js"
import { tokenlessRate } from "../../src/transports/limits/TokenlessRate.js"
import { Services } from "../support/Services.js"
import { inProcessServers } from "../support/InProcessServers.js"
import { standardIntrospection } from "../support/introspection.js"

/**
 * Introspection, which SCHEMA_ACCESS=open lets callers without the token ask: an operation selects
 * at most one `__schema` and a few `__type` at its root; the same document walks the schema once;
 * and the calls without the token are bounded in rate, per port and per address, with 429.
 */

const token = "introspection-bounds-token"
const authorization = `Bearer ${token}`

interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly body: any
}

const post = (url: string, query: string, headers: Record<string, string> = {}): Promise<Reply> =>
  fetch(`${url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json", ...headers },
    body: JSON.stringify({ query }),
    signal: AbortSignal.timeout(10_000)
  }).then(async (r) => ({ status: r.status, headers: r.headers, body: await r.json() }))

const get = (url: string, query: string, headers: Record<string, string> = {}): Promise<Reply> =>
  fetch(`${url}/graphql?query=${encodeURIComponent(query)}`, {
    headers: { accept: "application/json", ...headers },
    signal: AbortSignal.timeout(10_000)
  }).then(async (r) => ({ status: r.status, headers: r.headers, body: await r.json() }))

/** The one that issue 61 measured: 60 copies of a small `__schema` that walks every type. */
const aliasedSchemas = (copies: number) =>
  `{ ${Array.from({ length: copies }, (_, i) => `s${i}: __schema { types { name fields { name } } }`).join(" ")} }`

const aliasedTypes = (copies: number) =>
  `{ ${Array.from({ length: copies }, (_, i) => `t${i}: __type(name: "Org") { name fields { name } }`).join(" ")} }`

/** `onboarding_graphql_introspection_total` for the org port, by answer, read from /metrics with the token. */
const introspectionAnswers = async (url: string) => {
  const text = await fetch(`${url}/metrics`, { headers: { authorization } }).then((r) => r.text())
  const count = (answer: string) => {
    const line = text.split("\n").find((each) =>
      each.startsWith("onboarding_graphql_introspection_total{") && each.includes(`answer="${answer}"`) &&
      each.includes(`service="org.v1beta1.OrgService"`)
    )
    return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(" ") + 1))
  }
  return { walked: count("walked"), cached: count("cached") }
}

/** A POST from `localAddress` (127.0.0.2 tells a second client apart on loopback). */
const postFrom = (url: string, localAddress: string, query: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = http.request(`${url}/graphql`, {
      method: "POST",
      localAddress,
      headers: { "content-type": "application/json" },
      timeout: 10_000
    }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }))
    })
    request.on("error", reject)
    request.on("timeout", () => request.destroy(new Error("no answer in 10 s")))
    request.end(JSON.stringify({ query }))
  })

const withToken = (rates: { readonly schemaAccessRate: number; readonly schemaAccessRatePerAddress: number }) =>
  inProcessServers({ apiToken: Option.some(Redacted.make(token)), schemaAccess: "open", ...rates })

describe("introspection's root fields: one __schema, a few __type", () => {
  // Rates far above what these tests send: they are about documents, not rates.
  layer(withToken({ schemaAccessRate: 10_000, schemaAccessRatePerAddress: 10_000 }), { timeout: 60_000, excludeTestServices: true })(
    (it) => {
      it.effect("60 aliased __schema fields are refused as INVALID_ARGUMENT, POST and GET, with the token or without", () =>
        Effect.gen(function*() {
          const { org } = yield* Services
          const query = aliasedSchemas(60)
          for (const [how, send] of [["POST", post], ["GET", get]] as const) {
            for (const headers of [{}, { authorization }]) {
              const reply = yield* Effect.promise(() => send(org, query, headers))
              expect({ how, token: "authorization" in headers, data: reply.body.data, error: reply.body.errors?.[0] }).toEqual({
                how,
                token: "authorization" in headers,
                data: undefined,
                error: {
                  message: `the operation selects __schema 60 times at its root (aliases and fragments included); at most ${maxSchemaFields} is allowed`,
                  locations: [{ line: 1, column: 1 }],
                  extensions: { code: "INVALID_ARGUMENT" }
                }
              })
            }
          }
          // Two already, and through fragments on the root too.
          const two = yield* Effect.promise(() => post(org, aliasedSchemas(2)))
          expect(two.body.errors?.[0]?.extensions?.code).toBe("INVALID_ARGUMENT")
          const spread = yield* Effect.promise(() =>
            post(org, "{ ...F ... on Query { __schema { queryType { name } } } } fragment F on Query { __schema { queryType { name } } }")
          )
          expect(spread.body.errors?.[0]?.message).toMatch(/selects __schema 2 times/)
        }))

      it.effect(`${maxTypeFields} __type fields are answered; one more is refused`, () =>
        Effect.gen(function*() {
          const { org } = yield* Services
          const allowed = yield* Effect.promise(() => post(org, aliasedTypes(maxTypeFields)))
          expect(allowed.body.errors).toBeUndefined()
          expect(allowed.body.data.t0.name).toBe("Org")
          const refused = yield* Effect.promise(() => post(org, aliasedTypes(maxTypeFields + 1)))
          expect(refused.body.errors?.[0]).toMatchObject({
            message: `the operation selects __type ${maxTypeFields + 1} times at its root (aliases and fragments included); at most ${maxTypeFields} are allowed`,
            extensions: { code: "INVALID_ARGUMENT" }
          })
        }))

      it.effect("GraphiQL's standard introspection query is answered whole, without the token and with it", () =>
        Effect.gen(function*() {
          const { org } = yield* Services
          for (const headers of [{}, { authorization }]) {
            const reply = yield* Effect.promise(() => post(org, standardIntrospection, headers))
            expect({ status: reply.status, errors: reply.body.errors }).toEqual({ status: 200, errors: undefined })
            expect(printSchema(buildClientSchema(reply.body.data as IntrospectionQuery))).toBe(printSchema(orgGraphql.schema))
          }
        }))

      it.effect("the same introspection document walks the schema once, whoever asks; another document walks it again", () =>
        Effect.gen(function*() {
          const { org } = yield* Services
          // A comment makes the text this test's own: the cache is keyed by the text.
          const query = `# ${randomUUID()}\n${standardIntrospection}`
          const before = yield* Effect.promise(() => introspectionAnswers(org))
          const first = yield* Effect.promise(() => post(org, query))
          const second = yield* Effect.promise(() => post(org, query, { authorization }))
          const third = yield* Effect.promise(() => get(org, query))
          expect(second.body).toEqual(first.body)
          expect(third.body).toEqual(first.body)
          const after = yield* Effect.promise(() => introspectionAnswers(org))
          expect({ walked: after.walked - before.walked, cached: after.cached - before.cached }).toEqual({ walked: 1, cached: 2 })
          // Variables that the operation uses are part of what is asked.
          const byName = `query T($name: String!) { __type(name: $name) { name } } # ${randomUUID()}`
          const ask = (name: string) =>
            fetch(`${org}/graphql`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ query: byName, variables: { name } })
            }).then((r) => r.json() as Promise<any>)
          expect(yield* Effect.promise(() => ask("Org"))).toEqual({ data: { __type: { name: "Org" } } })
          expect(yield* Effect.promise(() => ask("Query"))).toEqual({ data: { __type: { name: "Query" } } })
          expect(yield* Effect.promise(() => ask("Org"))).toEqual({ data: { __type: { name: "Org" } } })
          const last = yield* Effect.promise(() => introspectionAnswers(org))
          expect({ walked: last.walked - after.walked, cached: last.cached - after.cached }).toEqual({ walked: 2, cached: 1 })
        }))
    }
  )
})

describe("calls without the token, bounded in rate per port and per address", () => {
  // A burst of 1 for an address, 2 for the port, refilled that many a second: a test's few calls
  // arrive within milliseconds, and the counts asserted allow seconds.
  layer(withToken({ schemaAccessRate: 2, schemaAccessRatePerAddress: 1 }), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("over the rate: 429, RESOURCE_EXHAUSTED, Retry-After; a call with the token is answered meanwhile", () =>
      Effect.gen(function*() {
        const { org } = yield* Services
        const query = "{ __schema { queryType { name } } }"
        const replies = yield* Effect.promise(() => Promise.all(Array.from({ length: 10 }, () => post(org, query))))
        const refused = replies.filter((reply) => reply.status === 429)
        expect(refused.length).toBeGreaterThanOrEqual(5)
        expect(refused.length + replies.filter((reply) => reply.status === 200).length).toBe(10)
        expect(refused[0]!.body.errors[0]).toMatchObject({ extensions: { code: "RESOURCE_EXHAUSTED" } })
        expect(refused[0]!.body.errors[0].message).toMatch(/^too many calls without the token on this port/)
        expect(Number(refused[0]!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
        // The other schema documents share the allowance.
        const documents = yield* Effect.promise(() => Promise.all(Array.from({ length: 10 }, () => fetch(`${org}/openapi.json`))))
        expect(documents.filter((reply) => reply.status === 429).length).toBeGreaterThanOrEqual(1)
        // With the token nothing counts: every one answered.
        const held = yield* Effect.promise(() => Promise.all(Array.from({ length: 10 }, () => post(org, query, { authorization }))))
        expect(held.map((reply) => reply.status)).toEqual(Array.from({ length: 10 }, () => 200))
        const call = yield* Effect.promise(() => post(org, "{ orgs(pageSize: 1) { nextPageToken } }", { authorization }))
        expect({ status: call.status, errors: call.body.errors }).toEqual({ status: 200, errors: undefined })
      }))
  })

  layer(withToken({ schemaAccessRate: 3, schemaAccessRatePerAddress: 1 }), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("one address over its share leaves the rest of the port to another address", () =>
      Effect.gen(function*() {
        const { org } = yield* Services
        const query = "{ __typename }"
        const first = yield* Effect.promise(() => Promise.all(Array.from({ length: 6 }, () => postFrom(org, "127.0.0.1", query))))
        expect(first.filter((reply) => reply.status === 429).length).toBeGreaterThanOrEqual(3)
        const other = yield* Effect.promise(() => postFrom(org, "127.0.0.2", query))
        expect({ status: other.status, body: JSON.parse(other.body) }).toEqual({ status: 200, body: { data: { __typename: "Query" } } })
      }))
  })
})

describe("the rate's token bucket", () => {
  plainIt("lets a second's worth through at once, then one per share of a second, and says how long to wait", () => {
    let now = 0
    const admit = tokenlessRate({ perSecond: 4, perAddressPerSecond: 2 }, () => now)
    expect([admit("a"), admit("a"), admit("a")]).toEqual([undefined, undefined, 1])
    expect([admit("b"), admit("b"), admit("c")]).toEqual([undefined, undefined, 1])
    now = 250
    // The port has one again, but the address not yet: half a second for a rate of 2.
    expect(admit("a")).toBe(1)
    expect(admit("c")).toBe(undefined)
    now = 5_000
    expect([admit("a"), admit("a"), admit("a")]).toEqual([undefined, undefined, 1])
  })
})
