import { create, toBinary } from "@bufbuild/protobuf"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { randomBytes, randomUUID } from "node:crypto"
import * as net from "node:net"
import type { AddressInfo } from "node:net"
import { GetOrgRequestSchema } from "../../src/gen/org/v1beta1/org_pb.js"
import { envelope, grpcRaw } from "../reliability/support/wire.js"
import { otlpReceiver, type ReceivedSpan } from "./support/OtlpReceiver.js"
import { freePort, type Running, startAllInOne, startProcess, stopProcess } from "./support/Processes.js"

/**
 * Traces as an operator's collector receives them: the all-in-one process (embedded PostgreSQL)
 * exports over OTLP/HTTP to a receiver that decodes with OpenTelemetry's own protobuf definitions.
 */

let receiver: Awaited<ReturnType<typeof otlpReceiver>>
let running: Running
let ports: { org: number; workflow: number }

beforeAll(async () => {
  receiver = await otlpReceiver()
  const [org, profile, license, workflow] = await Promise.all(Array.from({ length: 4 }, freePort))
  ports = { org: org!, workflow: workflow! }
  running = await startProcess("all", {
    DATA_DIR: "memory://",
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_BSP_SCHEDULE_DELAY: "100",
    OTEL_METRIC_EXPORT_INTERVAL: "300",
    ORG_PORT: String(org),
    PROFILE_PORT: String(profile),
    LICENSE_PORT: String(license),
    WORKFLOW_PORT: String(workflow)
  }, 4)
}, 60_000)

afterAll(async () => {
  await stopProcess(running)
  await receiver.close()
})

/** A caller's W3C trace context: a new trace, and the caller's own span in it. */
const callerTrace = () => {
  const traceId = randomBytes(16).toString("hex")
  const spanId = randomBytes(8).toString("hex")
  // Vendors' entries (W3C tracestate): carried on by every span of the call.
  const traceState = `vendor=${spanId.slice(0, 8)},other=x`
  return { traceId, spanId, traceState, traceparent: `00-${traceId}-${spanId}-01`, tracestate: traceState }
}

/**
 * A trace's spans once its call has ended: the server span ends last (after the answer is
 * written), and the batch processor exports spans in the order they end, so once it has arrived
 * the call's spans are all here.
 */
const spansOf = async (traceId: string): Promise<Array<ReceivedSpan>> => {
  const found = () => receiver.spans.filter((span) => span.traceId === traceId)
  // A ceiling for a trace that never comes, not an expectation: a busy machine exports late.
  for (let attempt = 0; attempt < 600; attempt++) {
    if (found().some((span) => span.kind === 2)) return found()
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return found()
}

/** The chain of span names from `span` up to the root of its trace, each a parent of the one before. */
const ancestry = (spans: ReadonlyArray<ReceivedSpan>, span: ReceivedSpan): Array<string> => {
  const byId = new Map(spans.map((each) => [each.spanId, each]))
  const chain = [span.name]
  for (let parent = byId.get(span.parentSpanId); parent !== undefined; parent = byId.get(parent.parentSpanId)) {
    chain.push(parent.name)
  }
  return chain
}

describe("traces over OTLP", () => {
  const orgName = `Tracing Secret ${randomUUID()}`
  let orgId = ""

  it("a workflow call: one tree under the caller's trace, server span to SQL statements, with its workflow id", async () => {
    const caller = callerTrace()
    const workflowId = randomUUID()
    const reply = await fetch(`http://127.0.0.1:${ports.workflow}/workflow.v1beta1.WorkflowService/CreateOnboardingWorkflow`, {
      method: "POST",
      headers: { "content-type": "application/json", traceparent: caller.traceparent },
      body: JSON.stringify({
        workflowOptions: { workflowId },
        org: { name: orgName },
        profile: { fullName: "Traced Person" },
        license: { start: "2025-01-01T00:00:00Z", end: "2026-01-01T00:00:00Z" }
      })
    })
    expect(reply.status).toBe(200)
    const result = await reply.json() as { orgId: string; workflowId: string }
    expect(result.workflowId).toBe(workflowId)
    orgId = result.orgId
    // The caller learns its call's trace (W3C Trace Context Level 2).
    expect(reply.headers.get("traceresponse")).toMatch(new RegExp(`^00-${caller.traceId}-[0-9a-f]{16}-01$`))

    const spans = await spansOf(caller.traceId)
    const server = spans.find((span) => span.kind === 2)!
    expect(server).toMatchObject({
      service: "onboarding-all",
      name: "workflow.v1beta1.WorkflowService/CreateOnboardingWorkflow",
      parentSpanId: caller.spanId,
      attributes: expect.objectContaining({
        "rpc.system": "connect_rpc",
        "rpc.service": "workflow.v1beta1.WorkflowService",
        "rpc.method": "CreateOnboardingWorkflow",
        "http.response.status_code": 200,
        "onboarding.style": "connect",
        "onboarding.code": "ok"
      })
    })
    // One operation a call: the server span stands for it, and carries what it says of itself.
    expect(spans.some((span) => span.name === "CreateOnboardingWorkflow")).toBe(false)
    expect(server.attributes["onboarding.workflow_id"]).toBe(workflowId)
    expect(server.attributes["onboarding.operation"]).toBe("CreateOnboardingWorkflow")
    const inserts = spans.filter((span) => span.name === "sql.execute")
    expect(inserts.map((span) => String(span.attributes["db.query.text"]).split("(")[0]!.trim()).sort()).toEqual([
      "insert into licenses",
      "insert into onboarding_runs",
      "insert into orgs",
      "insert into profiles"
    ])
    for (const insert of inserts) {
      expect(ancestry(spans, insert)).toEqual([
        "sql.execute",
        "sql.transaction",
        "workflow.v1beta1.WorkflowService/CreateOnboardingWorkflow"
      ])
      expect(insert.attributes["db.system.name"]).toBe("postgresql")
    }
    // Values bound into SQL never leave the process: placeholders only.
    for (const span of receiver.spans) expect(JSON.stringify(span.attributes)).not.toContain(orgName)
    // The access line of the call carries the same trace.
    const access = running.output().split("\n").filter((line) => line.includes(`"traceId":"${caller.traceId}"`))
    expect(access.some((line) => JSON.parse(line).access === true)).toBe(true)
  })

  it("every style continues the caller's trace with a server span named after its operation or route", async () => {
    const org = `http://127.0.0.1:${ports.org}`
    const calls: Array<readonly [string, string, (trace: Record<string, string>) => Promise<unknown>]> = [
      ["rest", "GET /orgs/{id}", (trace) => fetch(`${org}/orgs/${orgId}`, { headers: trace })],
      ["grpc", "org.v1beta1.OrgService/GetOrg", (trace) =>
        grpcRaw(org, "org.v1beta1.OrgService/GetOrg", envelope(toBinary(GetOrgRequestSchema, create(GetOrgRequestSchema, { id: orgId }))), trace)],
      ["grpc-web", "org.v1beta1.OrgService/GetOrg", (trace) =>
        fetch(`${org}/org.v1beta1.OrgService/GetOrg`, {
          method: "POST",
          headers: { "content-type": "application/grpc-web+proto", ...trace },
          body: envelope(toBinary(GetOrgRequestSchema, create(GetOrgRequestSchema, { id: orgId })))
        })],
      ["graphql", "POST /graphql", (trace) =>
        fetch(`${org}/graphql`, {
          method: "POST",
          headers: { "content-type": "application/json", ...trace },
          body: JSON.stringify({ query: `{ org(id: "${orgId}") { org { name } } }` })
        })],
      ["rpc", "POST /rpc", (trace) =>
        fetch(`${org}/rpc`, {
          method: "POST",
          headers: { "content-type": "application/json", ...trace },
          body: JSON.stringify({ _tag: "Request", id: "1", tag: "GetOrg", payload: { id: orgId }, headers: [] })
        })]
    ]
    for (const [style, name, call] of calls) {
      const caller = callerTrace()
      await call({ traceparent: caller.traceparent, tracestate: caller.tracestate })
      const spans = await spansOf(caller.traceId)
      const server = spans.find((span) => span.kind === 2)
      expect(server, style).toMatchObject({ name, parentSpanId: caller.spanId, traceState: caller.traceState })
      expect(server!.attributes["onboarding.style"], style).toBe(style)
      expect(server!.attributes["onboarding.code"], style).toBe("ok")
      const select = spans.find((span) => span.name === "sql.execute")
      expect(select, style).toBeDefined()
      expect(select!.traceState, style).toBe(caller.traceState)
      // One operation a call: its statement right under the server span, which names the
      // operation; over /rpc, @effect/rpc's own span for its handler stays between them.
      expect(ancestry(spans, select!), style).toEqual(["sql.execute", ...(style === "rpc" ? ["RpcServer.GetOrg"] : []), name])
      expect(server!.attributes["onboarding.operation"], style).toBe("GetOrg")
    }
  })

  it("a GraphQL document of several root fields: a span for each operation under the server span", async () => {
    const caller = callerTrace()
    const reply = await fetch(`http://127.0.0.1:${ports.org}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", traceparent: caller.traceparent },
      body: JSON.stringify({ query: `{ org(id: "${orgId}") { org { name } } missing: org(id: "${randomUUID()}") { org { name } } }` })
    })
    expect(reply.status).toBe(200)
    const spans = await spansOf(caller.traceId)
    const server = spans.find((span) => span.kind === 2)!
    const operations = spans.filter((span) => span.name === "GetOrg")
    expect(operations.map((span) => span.parentSpanId)).toEqual([server.spanId, server.spanId])
    // The refused one's span is an error; the call's server span is not (a refusal is not the server's fault).
    expect(operations.map((span) => span.status).sort()).toEqual([1, 2])
    expect(server.status).not.toBe(2)
    // The operations' spans tell their own failures; the server span stands for none of them.
    expect(server.events).toEqual([])
    for (const operation of operations) {
      expect(spans.filter((span) => span.name === "sql.execute" && span.parentSpanId === operation.spanId)).toHaveLength(1)
    }
  })

  it("a refused call: its code and an exception event on the server span, whose status stays the server's rule", async () => {
    const caller = callerTrace()
    const missing = randomUUID()
    const reply = await fetch(`http://127.0.0.1:${ports.org}/orgs/${missing}`, { headers: { traceparent: caller.traceparent } })
    expect(reply.status).toBe(404)
    const spans = await spansOf(caller.traceId)
    const server = spans.find((span) => span.kind === 2)!
    expect(server.attributes).toMatchObject({ "http.response.status_code": 404, "onboarding.code": "not_found" })
    expect(server.status).not.toBe(2)
    expect(server.events).toEqual([{
      name: "exception",
      attributes: { "exception.type": "NotFound", "exception.message": expect.stringContaining(missing) }
    }])
  })
})

describe("metrics over OTLP", () => {
  it("the same metrics as /metrics, sent to the collector every interval", async () => {
    const calls = { "x-request-id": `metrics-${randomUUID()}`, "content-type": "application/json" }
    for (let i = 0; i < 3; i++) {
      await fetch(`http://127.0.0.1:${ports.org}/orgs/${randomUUID()}`, { method: "POST", headers: calls, body: JSON.stringify({ name: "Acme" }) })
    }
    const created = () =>
      receiver.points.filter((point) =>
        point.metric === "onboarding_calls_total" &&
        point.attributes["operation"] === "CreateOrg" && point.attributes["style"] === "rest" && point.attributes["code"] === "ok"
      )
    for (let attempt = 0; attempt < 50 && !created().some((point) => point.value >= 3); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(Math.max(...created().map((point) => point.value))).toBeGreaterThanOrEqual(3)
    expect(created()[0]!.service).toBe("onboarding-all")
    expect(receiver.points.some((point) => point.metric === "onboarding_call_duration_seconds")).toBe(true)
  })
})

describe("the trace exporter never holds a call up", () => {
  const start = async (env: Record<string, string>) => {
    const { org, running } = await startAllInOne(env)
    return { process: running, org }
  }

  it("a collector that never answers: calls answer as usual, and the exporter's trouble is logged and counted, not thrown", async () => {
    // Takes connections and says nothing: each export waits out its timeout while spans pile up.
    const silent = net.createServer(() => {})
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve))
    const { org, process } = await start({
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
      OTEL_BSP_SCHEDULE_DELAY: "50",
      // A queue of 2 and batches of 1, each export waiting out 200 ms: at most about 5 spans a second
      // leave it, so 40 spans overflow it however slowly a busy machine serves the 20 calls.
      OTEL_BSP_MAX_QUEUE_SIZE: "2",
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "1",
      OTEL_EXPORTER_OTLP_TIMEOUT: "200"
    })
    const create = () =>
      fetch(`${org}/orgs/${randomUUID()}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "Acme" })
      })
    let dropped: Record<string, number> = {}
    try {
      // At once: one after the other, on a loaded machine, calls can come slower than the queue
      // drains (a CI run saw no queue_full that way).
      const statuses = await Promise.all(Array.from({ length: 20 }, async () => (await create()).status))
      expect(statuses.filter((status) => status !== 200)).toEqual([])
      // The batch processor tells of spans it had no room for when it next has room: a call now
      // and then, until it has told of both kinds (at most 10 s).
      for (let i = 0; i < 20 && !(dropped["queue_full"]! > 0 && dropped["export_failed"]! > 0); i++) {
        await new Promise((resolve) => setTimeout(resolve, 500))
        expect((await create()).status).toBe(200)
        const metrics = await (await fetch(`${org}/metrics`)).text()
        dropped = Object.fromEntries(
          [...metrics.matchAll(/^onboarding_trace_spans_dropped_total\{reason="(\w+)"\} (\d+)$/gm)].map(([, reason, count]) => [reason, Number(count)])
        )
      }
    } finally {
      expect(await stopProcess(process)).toBe(0)
      silent.close()
    }
    // 20 calls at once of at least two spans each, through a queue of 2 to a collector that is not there.
    expect(dropped["queue_full"]).toBeGreaterThan(0)
    expect(dropped["export_failed"]).toBeGreaterThan(0)
    const warnings = process.output().split("\n").filter((line) => line.includes("OpenTelemetry:"))
    expect(warnings.length).toBeGreaterThanOrEqual(1)
    expect(warnings.length).toBeLessThanOrEqual(4) // once a minute each kind, not once per export or drop
  }, 60_000)

  it("spans still queued when the process is told to stop are flushed before it exits", async () => {
    const collector = await otlpReceiver()
    const { org, process } = await start({
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_BSP_SCHEDULE_DELAY: "600000" // nothing is sent on the timer
    })
    const caller = callerTrace()
    await fetch(`${org}/orgs/${randomUUID()}`, { headers: { traceparent: caller.traceparent } })
    expect(collector.spans.filter((span) => span.traceId === caller.traceId)).toEqual([])
    expect(await stopProcess(process)).toBe(0)
    expect(collector.spans.filter((span) => span.traceId === caller.traceId).length).toBeGreaterThanOrEqual(2)
    await collector.close()
  }, 60_000)
})
