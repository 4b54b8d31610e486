import { create, toBinary } from "@bufbuild/protobuf"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, HashMap, Layer, Logger, Option, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import { GetOrgRequestSchema } from "../../src/gen/org/v1beta1/org_pb.js"
import { Services } from "../support/Services.js"
import { envelope, grpcRaw, httpCall, rpcRequest } from "../reliability/support/wire.js"
import { InMemoryServices, inProcessServers } from "../support/InProcessServers.js"

/** What each style's call is expected to be recorded as: [x-request-id, style, operation, code]. */
type Expected = readonly [string, string, string, string]

/** One call in each style on the org port, each with its own request id; answers what each should log. */
const everyStyle = async (baseUrl: string, headers: Record<string, string> = {}): Promise<ReadonlyArray<Expected>> => {
  const id = randomUUID()
  const missing = randomUUID()
  const ids = Array.from({ length: 9 }, () => `telemetry-${randomUUID()}`)
  const h = (i: number, extra: Record<string, string> = {}) => ({ ...headers, "x-request-id": ids[i]!, ...extra })
  const json = { "content-type": "application/json" }
  await httpCall(`${baseUrl}/orgs/${id}`, { headers: h(0, json), body: JSON.stringify({ name: "Acme" }) })
  await httpCall(`${baseUrl}/org.v1beta1.OrgService/GetOrg`, { headers: h(1, json), body: JSON.stringify({ id }) })
  await grpcRaw(baseUrl, "org.v1beta1.OrgService/GetOrg", envelope(toBinary(GetOrgRequestSchema, create(GetOrgRequestSchema, { id: missing }))), h(2))
  await httpCall(`${baseUrl}/org.v1beta1.OrgService/GetOrg`, {
    headers: h(3, { "content-type": "application/grpc-web+proto" }),
    body: envelope(toBinary(GetOrgRequestSchema, create(GetOrgRequestSchema, { id: "not-a-uuid" })))
  })
  await httpCall(`${baseUrl}/graphql`, {
    headers: h(4, json),
    body: JSON.stringify({ query: `{ org(id: "${missing}") { org { id } } }` })
  })
  await httpCall(`${baseUrl}/rpc`, { headers: h(5, json), body: rpcRequest("GetOrg", { id }) })
  await httpCall(`${baseUrl}/orgs/${missing}`, { headers: h(6) })
  await httpCall(`${baseUrl}/no/such/path`, { headers: h(7) })
  await httpCall(`${baseUrl}/org.v1beta1.OrgService/GetOrg`, { headers: h(8, { "content-type": "text/plain" }), body: "{}" })
  return [
    [ids[0]!, "rest", "CreateOrg", "ok"],
    [ids[1]!, "connect", "GetOrg", "ok"],
    [ids[2]!, "grpc", "GetOrg", "not_found"],
    [ids[3]!, "grpc-web", "GetOrg", "invalid_argument"],
    [ids[4]!, "graphql", "GetOrg", "not_found"],
    [ids[5]!, "rpc", "GetOrg", "ok"],
    [ids[6]!, "rest", "GetOrg", "not_found"],
    [ids[7]!, "rest", "none", "not_found"],
    [ids[8]!, "connect", "none", "invalid_argument"]
  ]
}

type Line = Record<string, unknown>
const lines: Array<Line> = []
const capture = Logger.replace(
  Logger.defaultLogger,
  Logger.make(({ annotations, message }) => {
    lines.push({ message: Array.isArray(message) ? message.join(" ") : message, ...Object.fromEntries(HashMap.toEntries(annotations)) })
  })
)

const accessLines = (requestId: string) => lines.filter((line) => line["access"] === true && line["requestId"] === requestId)

/** The value of one series in a Prometheus text page, 0 when it is not there. */
const series = (page: string, name: string, labels: Record<string, string>): number => {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`)
  const line = page.split("\n").find((each) =>
    each.startsWith(`${name}{`) && wanted.every((label) => each.slice(0, each.lastIndexOf("}")).includes(label))
  )
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(" ") + 1))
}

const service = "org.v1beta1.OrgService"

describe("call telemetry", () => {
  layer(inProcessServers({ accessLog: true }, InMemoryServices).pipe(Layer.provide(capture)), {
    timeout: 120_000,
    excludeTestServices: true
  })((it) => {
    it.effect("one access line per call in every style, refusals included, with its request id, operation and code", () =>
      Effect.gen(function*() {
        const { org } = yield* Services
        const expected = yield* Effect.promise(() => everyStyle(org))
        // A response's end and its line are a moment apart.
        yield* Effect.sleep("100 millis")
        for (const [requestId, style, operation, code] of expected) {
          const found = accessLines(requestId)
          expect(found, `${style} ${operation} ${code}`).toHaveLength(1)
          expect(found[0]).toMatchObject({ style, operation, code, method: expect.any(String), path: expect.any(String) })
          expect(found[0]!["durationMs"]).toBeGreaterThan(0)
          expect(typeof found[0]!["status"]).toBe("number")
        }
        // Probes are not calls.
        const probe = `probe-${randomUUID()}`
        yield* Effect.promise(() => httpCall(`${org}/healthz`, { headers: { "x-request-id": probe } }))
        yield* Effect.sleep("50 millis")
        expect(accessLines(probe)).toEqual([])
      }))

    it.effect("GET /metrics counts the calls by service, operation, style and code, with their durations", () =>
      Effect.gen(function*() {
        const { org } = yield* Services
        const before = yield* Effect.promise(() => httpCall(`${org}/metrics`))
        expect(before.status).toBe(200)
        expect(before.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8")
        const expected = yield* Effect.promise(() => everyStyle(org))
        yield* Effect.sleep("100 millis")
        const after = yield* Effect.promise(() => httpCall(`${org}/metrics`))
        const counts = new Map<string, number>()
        for (const [, style, operation, code] of expected) {
          const key = JSON.stringify({ service, style, operation, code })
          counts.set(key, (counts.get(key) ?? 0) + 1)
        }
        for (const [key, count] of counts) {
          const labels = JSON.parse(key) as Record<string, string>
          expect(series(after.text, "onboarding_calls_total", labels) - series(before.text, "onboarding_calls_total", labels), key)
            .toBe(count)
        }
        const rest = { service, operation: "CreateOrg", style: "rest" }
        expect(series(after.text, "onboarding_call_duration_seconds_count", rest)).toBeGreaterThanOrEqual(1)
        expect(series(after.text, "onboarding_call_duration_seconds_bucket", { ...rest, le: "+Inf" }))
          .toBe(series(after.text, "onboarding_call_duration_seconds_count", rest))
        expect(after.text).toContain("# TYPE onboarding_calls_total counter")
        expect(after.text).toContain("# TYPE onboarding_call_duration_seconds histogram")
        expect(series(after.text, "onboarding_calls_in_flight", { service, style: "rest" })).toBe(0)
        expect(after.text).toMatch(/^process_resident_memory_bytes \d+$/m)
        expect(after.text).toMatch(/^nodejs_eventloop_lag_p99_seconds [\d.e-]+$/m)
        // Scrapes are not calls: the first scrape is not counted in the second. (A delta: calls that
        // other suites in this worker made on their own ports share the process's metrics.)
        const scrapes = { operation: "none", style: "rest", code: "ok" }
        expect(series(after.text, "onboarding_calls_total", scrapes) - series(before.text, "onboarding_calls_total", scrapes)).toBe(0)
      }))
  })

  layer(
    inProcessServers({ accessLog: false, apiToken: Option.some(Redacted.make("metrics-token")) }, InMemoryServices).pipe(
      Layer.provide(capture)
    ),
    { timeout: 120_000, excludeTestServices: true }
  )((it) => {
    it.effect("with API_TOKEN, /metrics wants the token too; ACCESS_LOG=off writes no access line", () =>
      Effect.gen(function*() {
        const { org } = yield* Services
        expect((yield* Effect.promise(() => httpCall(`${org}/metrics`))).status).toBe(401)
        const scrape = yield* Effect.promise(() =>
          httpCall(`${org}/metrics`, { headers: { authorization: "Bearer metrics-token" } })
        )
        expect(scrape.status).toBe(200)
        const requestId = `quiet-${randomUUID()}`
        const refused = yield* Effect.promise(() => httpCall(`${org}/orgs/${randomUUID()}`, { headers: { "x-request-id": requestId } }))
        expect(refused.status).toBe(401)
        yield* Effect.sleep("50 millis")
        expect(accessLines(requestId)).toEqual([])
      }))
  })
})
