import { create, toBinary } from "@bufbuild/protobuf"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, HashMap, Layer, Logger, Option, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import * as http2 from "node:http2"
import { GetOrgRequestSchema } from "../../src/gen/org/v1beta1/org_pb.js"
import { Orgs } from "../../src/services/Orgs.js"
import { Services } from "../support/Services.js"
import { envelope, httpCall, rpcRequest } from "../reliability/support/wire.js"
import { InMemoryServices, inProcessServers } from "../support/InProcessServers.js"

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** The x-request-id of a gRPC call's response headers (trailers-only answers included). */
const grpcRequestId = (baseUrl: string, headers: Record<string, string>) =>
  new Promise<string | undefined>((resolve, reject) => {
    const session = http2.connect(baseUrl)
    session.on("error", reject)
    const stream = session.request({
      ":method": "POST",
      ":path": "/org.v1beta1.OrgService/GetOrg",
      "content-type": "application/grpc",
      te: "trailers",
      ...headers
    })
    stream.on("response", (h) => resolve(h["x-request-id"] as string | undefined))
    stream.on("error", reject)
    stream.on("close", () => session.close())
    stream.resume()
    stream.end(envelope(toBinary(GetOrgRequestSchema, create(GetOrgRequestSchema, { id: randomUUID() }))))
  })

/** One call in each style on the org port, answering with the x-request-id it got back. */
const everyStyle = (baseUrl: string, headers: Record<string, string>) => {
  const json = { "content-type": "application/json", ...headers }
  const id = randomUUID()
  const idOf = (reply: Promise<{ readonly headers: Headers }>) => reply.then((r) => r.headers.get("x-request-id"))
  return Promise.all([
    idOf(httpCall(`${baseUrl}/org.v1beta1.OrgService/GetOrg`, { headers: json, body: JSON.stringify({ id }) })),
    grpcRequestId(baseUrl, headers),
    idOf(httpCall(`${baseUrl}/orgs/${id}`, { headers })),
    idOf(httpCall(`${baseUrl}/graphql`, { headers: json, body: JSON.stringify({ query: `{ org(id: "${id}") { org { id } } }` }) })),
    idOf(httpCall(`${baseUrl}/rpc`, { headers: json, body: rpcRequest("GetOrg", { id }) })),
    idOf(httpCall(`${baseUrl}/healthz`, { headers })),
    idOf(httpCall(`${baseUrl}/no/such/path`, { headers }))
  ])
}

describe("request ids", () => {
  layer(inProcessServers(), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("a caller's x-request-id is echoed in every style, probes and unknown paths included", () =>
      Effect.gen(function*() {
        const { org } = yield* Services
        const given = `trace-${randomUUID()}`
        const echoed = yield* Effect.promise(() => everyStyle(org, { "x-request-id": given }))
        expect(echoed).toEqual(echoed.map(() => given))
      }))

    it.effect("without one, or with one that cannot be echoed safely, each call gets a new UUID", () =>
      Effect.gen(function*() {
        const { org } = yield* Services
        for (const headers of [{}, { "x-request-id": "x".repeat(129) }, { "x-request-id": "two words" }]) {
          const assigned = yield* Effect.promise(() => everyStyle(org, headers))
          for (const id of assigned) expect(id).toMatch(uuid)
          expect(new Set(assigned).size).toBe(assigned.length)
        }
      }))
  })

  layer(inProcessServers({ apiToken: Option.some(Redacted.make("request-id-token")) }), {
    timeout: 120_000,
    excludeTestServices: true
  })((it) => {
    it.effect("a call refused before its style runs (no token) still carries its id", () =>
      Effect.gen(function*() {
        const { org } = yield* Services
        const echoed = yield* Effect.promise(() => everyStyle(org, { "x-request-id": "refused-call-1" }))
        // /healthz is open; the others are refused with 401 (or gRPC 16) and the id.
        expect(echoed).toEqual(echoed.map(() => "refused-call-1"))
      }))
  })

  const logged: Array<string> = []
  const logger = Logger.make(({ annotations, message }) => {
    const requestId = HashMap.get(annotations, "requestId").pipe(Option.getOrUndefined)
    logged.push(`${String(message)} requestId=${String(requestId)}`)
  })
  const brokenOrgs = Layer.succeed(
    Orgs,
    Orgs.make({
      create: () => Effect.die(new Error("broken")),
      get: () => Effect.die(new Error("broken")),
      list: () => Effect.die(new Error("broken"))
    })
  )
  layer(
    inProcessServers({}, Layer.merge(InMemoryServices, brokenOrgs)).pipe(Layer.provide(Logger.replace(Logger.defaultLogger, logger))),
    { timeout: 120_000, excludeTestServices: true }
  )((it) => {
    it.effect("a failed call's log line names its request id, in every style", () =>
      Effect.gen(function*() {
        const { org } = yield* Services
        yield* Effect.promise(() => everyStyle(org, { "x-request-id": "failing-call-7" }))
        yield* Effect.sleep("100 millis")
        const lines = logged.filter((line) => line.includes("failed"))
        // Connect, gRPC, REST, GraphQL and /rpc each log the defect once.
        expect(lines.length).toBeGreaterThanOrEqual(5)
        for (const line of lines) expect(line).toContain("requestId=failing-call-7")
      }))
  })
})
