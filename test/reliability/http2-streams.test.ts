import { create } from "@bufbuild/protobuf"
import { createClient } from "@connectrpc/connect"
import { createGrpcTransport } from "@connectrpc/connect-node"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import * as net from "node:net"
import { Health, HealthCheckResponse_ServingStatus } from "../../src/gen/grpc/health/v1/health_pb.js"
import { CreateOrgRequestSchema, OrgService } from "../../src/gen/org/v1beta1/org_pb.js"
import { Services } from "../support/Services.js"
import { inProcessServers } from "../support/InProcessServers.js"
import { testDatabaseKind } from "../support/TestDatabase.js"
import { clientMagic, frame } from "./support/h2Frames.mjs"
import { connectStream, envelope, grpcJsCall, protoBytes, rawHttp } from "./support/wire.js"
import {
  h2Session,
  healthzOnNewConnection,
  neverEndingRequest,
  serverSettings,
  sessionClosed,
  type StreamOutcome
} from "./support/slowStreams.js"

/*
 * HTTP/2 clients that send slowly, open many streams, or say nothing: each must be bounded in
 * time and number as an HTTP/1.1 client is (see limits.test.ts for HTTP/1.1).
 */

const headersTimeout = 500
const requestTimeout = 800
/** Longer than the headers timeout, so that the two are told apart. */
const idleTimeout = 2_000
const maxConnections = 8
const maxStreams = 8
/** Timers, a loaded two-core machine, and suites running side by side. */
const slack = 700

const json = (outcome: StreamOutcome): any => JSON.parse(outcome.body.toString("utf8"))

/** One request per access style whose body never ends, as each style's client would open it. */
const slowCalls = (port: "org" | "workflow") => {
  const createOrg = "/org.v1beta1.OrgService/CreateOrg"
  const grpcBody = envelope(protoBytes(CreateOrgRequestSchema, { id: randomUUID(), name: "Slow" })).subarray(0, 8)
  return [
    { style: "REST", headers: { ":method": "PUT", ":path": `/orgs/${randomUUID()}`, "content-type": "application/json" }, first: "{\"name\":\"" },
    { style: "Connect JSON", headers: { ":path": createOrg, "content-type": "application/json" }, first: "{\"name\":\"" },
    { style: "Connect binary", headers: { ":path": createOrg, "content-type": "application/proto" }, first: protoBytes(CreateOrgRequestSchema, { name: "Slow" }).subarray(0, 3) },
    { style: "gRPC", headers: { ":path": createOrg, "content-type": "application/grpc", te: "trailers" }, first: grpcBody },
    { style: "gRPC-Web", headers: { ":path": createOrg, "content-type": "application/grpc-web+proto", "x-grpc-web": "1" }, first: grpcBody },
    { style: "GraphQL", headers: { ":path": "/graphql", "content-type": "application/json" }, first: "{\"query\":\"" },
    { style: "/rpc", headers: { ":path": "/rpc", "content-type": "application/json" }, first: "[{\"_tag\":" }
  ].map((call) => ({ ...call, port }))
}

/** What each style's client reads from a refusal: the Connect code, the gRPC status, REST's code, GraphQL's. */
const codeOf = (style: string, outcome: StreamOutcome): unknown => {
  if (style === "gRPC" || style === "gRPC-Web") return outcome.fields["grpc-status"]
  if (style === "GraphQL") return json(outcome).errors?.[0]?.extensions?.code
  return json(outcome).code
}

/** A call of `slowCalls`, its path possibly rewritten for another port. */
type SlowCall = { readonly style: string; readonly headers: Parameters<typeof neverEndingRequest>[1]; readonly first: Uint8Array | string }

/** Each call on a session of its own, its body never finished; the session is dropped once answered. */
const sendNeverEnding = <C extends SlowCall>(calls: ReadonlyArray<C>, baseUrl: (call: C) => string) =>
  Promise.all(calls.map(async (call) => {
    const session = await h2Session(baseUrl(call))
    const outcome = await neverEndingRequest(session, call.headers, { first: call.first, giveUpAfter: 5_000 })
    session.destroy()
    return outcome
  }))

/** What each style answered: its HTTP status and the code in its own form. */
const answers = (calls: ReadonlyArray<SlowCall>, outcomes: ReadonlyArray<StreamOutcome>) =>
  calls.map((call, i) => ({
    style: call.style,
    status: outcomes[i]!.status,
    code: outcomes[i]!.status === undefined ? undefined : codeOf(call.style, outcomes[i]!)
  }))

describe(`HTTP/2 streams: request timeout, stream cap, quiet sessions (${testDatabaseKind})`, () => {
  layer(
    inProcessServers({
      headersTimeoutMillis: headersTimeout,
      requestTimeoutMillis: requestTimeout,
      idleTimeoutMillis: idleTimeout,
      maxConnections,
      maxStreamsPerConnection: maxStreams
    }),
    { timeout: 120_000, excludeTestServices: true }
  )((it) => {
    it.effect("a stream whose body never ends is answered after REQUEST_TIMEOUT_MS in its style's form, and closed", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const calls = slowCalls("org")
        const outcomes = yield* Effect.promise(() => sendNeverEnding(calls, (call) => urls[call.port]))
        const expected: Record<string, { status: number; code: unknown }> = {
          "REST": { status: 408, code: 4 },
          "Connect JSON": { status: 408, code: "deadline_exceeded" },
          "Connect binary": { status: 408, code: "deadline_exceeded" },
          "gRPC": { status: 200, code: "4" },
          "gRPC-Web": { status: 200, code: "4" },
          "GraphQL": { status: 408, code: "DEADLINE_EXCEEDED" },
          "/rpc": { status: 408, code: 4 }
        }
        expect(answers(calls, outcomes)).toEqual(calls.map((call) => ({ style: call.style, ...expected[call.style] })))
        calls.forEach((call, i) => {
          const outcome = outcomes[i]!
          // Not a speed: the configured REQUEST_TIMEOUT_MS fires, neither early nor late.
          expect(outcome.answeredAfter).toBeGreaterThanOrEqual(requestTimeout - 50)
          expect(outcome.answeredAfter).toBeLessThanOrEqual(requestTimeout + slack)
          // Reset once answered: NO_ERROR after a trailers-only answer, else CANCEL (see Http2Limits.ts).
          expect(outcome.rstCode).toBe(call.style.startsWith("gRPC") ? 0 : 8)
          expect(outcome.closedAfter).toBeLessThanOrEqual(requestTimeout + slack)
        })
        const grpcMessage = decodeURIComponent(outcomes[calls.findIndex((c) => c.style === "gRPC")]!.fields["grpc-message"] ?? "")
        expect(grpcMessage).toBe(`the request did not arrive in full within ${requestTimeout} ms`)
        console.log(`HTTP/2 slow streams answered after ${outcomes.map((o) => o.answeredAfter).join(", ")} ms (REQUEST_TIMEOUT_MS=${requestTimeout})`)
      }))

    it.effect(`${maxConnections} connections with one slow stream each fill MAX_CONNECTIONS: /healthz is no longer locked out, the connection whose body waited longest is sent GOAWAY NO_ERROR`, () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const sessions = yield* Effect.promise(() => Promise.all(Array.from({ length: maxConnections }, () => h2Session(urls.license))))
        // Per session: its GOAWAY (code, last stream id) and whether its stream had been answered by then.
        const goaways: Array<{ code: number; lastStreamId: number; answeredBefore: boolean } | undefined> = sessions.map(() => undefined)
        const answered = sessions.map(() => false)
        const slow = sessions.map((session, i) => {
          session.once("goaway", (code: number, lastStreamId: number) => (goaways[i] = { code, lastStreamId, answeredBefore: answered[i]! }))
          const outcome = neverEndingRequest(
            session,
            { ":method": "PUT", ":path": `/licenses/${randomUUID()}`, "content-type": "application/json" },
            { first: "{", everyMillis: 300, giveUpAfter: 8_000 }
          )
          void outcome.then(() => (answered[i] = true))
          return outcome
        })
        // Two PINGs in a row: the second is read after the server has handled the read that brought the
        // stream, so every connection is now one whose only call waits for its body.
        const ping = (session: (typeof sessions)[number]) => new Promise<void>((resolve) => session.ping(() => resolve()))
        yield* Effect.promise(() => Promise.all(sessions.map(async (session) => { await ping(session); await ping(session) })))
        // Every place is taken: a new connection takes the place of one of theirs (before, it was closed on arrival).
        const health = yield* Effect.promise(() => healthzOnNewConnection(urls.license, 5_000))
        const outcomes = yield* Effect.promise(() => Promise.all(slow))
        const toldToGo = goaways.filter((g) => g !== undefined && !g.answeredBefore)
        console.log(`/healthz ${health} with ${maxConnections} slow HTTP/2 streams holding every place; GOAWAYs ${JSON.stringify(goaways)}`)
        expect({ health, toldToGo }).toEqual({ health: 200, toldToGo: [{ code: 0, lastStreamId: 1, answeredBefore: false }] })
        // The others are answered by the request timeout as before (the one told to go may be too, within its grace).
        expect(outcomes.filter((o) => o.status === 408).length).toBeGreaterThanOrEqual(maxConnections - 1)
        for (const session of sessions) session.destroy()
      }))

    it.effect(`streams over MAX_STREAMS_PER_CONNECTION (${maxStreams}) are refused; the rest are closed by the request timeout`, () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const perSession = 40
        const sessions = yield* Effect.promise(() => Promise.all([h2Session(urls.profile), h2Session(urls.profile)]))
        const outcomes = yield* Effect.promise(() =>
          Promise.all(sessions.map((session) =>
            Promise.all(Array.from({ length: perSession }, () =>
              neverEndingRequest(
                session,
                { ":method": "PUT", ":path": `/profiles/${randomUUID()}`, "content-type": "application/json" },
                { first: "{", giveUpAfter: 5_000 }
              )))
          ))
        )
        for (const [i, session] of sessions.entries()) {
          expect((yield* Effect.promise(() => serverSettings(session))).maxConcurrentStreams).toBe(maxStreams)
          const streams = outcomes[i]!
          const answered = streams.filter((o) => o.status !== undefined)
          const refused = streams.filter((o) => o.status === undefined && o.rstCode === 7) // REFUSED_STREAM
          expect(streams.filter((o) => o.gaveUp)).toEqual([])
          expect(answered.length).toBeLessThanOrEqual(maxStreams)
          expect(refused.length).toBeGreaterThanOrEqual(perSession - maxStreams)
          for (const o of answered) {
            expect(o.status).toBe(408)
            // Not a speed: the configured REQUEST_TIMEOUT_MS fires.
          expect(o.answeredAfter).toBeLessThanOrEqual(requestTimeout + slack)
          }
          console.log(`${perSession} never-finished streams on one connection: ${answered.length} answered 408, ${refused.length} refused (REFUSED_STREAM)`)
          session.destroy()
        }
      }))

    it.effect("a connection that sends PINGs or an unfinished HEADERS, but never a whole request, is closed after HEADERS_TIMEOUT_MS", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const preface = Buffer.concat([clientMagic, frame(4, 0, 0)])
        const ping = frame(6, 0, 0, Buffer.alloc(8))
        // HPACK: :method POST, :scheme http, :path /, then literal `x: y` fields, one per frame.
        const headers = frame(1, 0, 1, Buffer.from([0x83, 0x86, 0x84]))
        const continuation = frame(9, 0, 1, Buffer.from([0x00, 0x01, 0x78, 0x01, 0x79]))
        const openedFor = (first: Buffer, next: Buffer, everyMillis: number) =>
          new Promise<number>((resolve) => {
            const target = new URL(urls.workflow)
            const socket = net.connect(Number(target.port), target.hostname, () => socket.write(first))
            const opened = Date.now()
            const timer = setInterval(() => socket.writable && socket.write(next), everyMillis)
            const giveUp = setTimeout(() => socket.destroy(), 5_000)
            socket.on("data", () => {})
            socket.on("error", () => {})
            socket.once("close", () => {
              clearInterval(timer)
              clearTimeout(giveUp)
              resolve(Date.now() - opened)
            })
          })
        const [pinging, unfinished] = yield* Effect.promise(() =>
          // CONTINUATION frames slower than Node's own limit (8 of them) would end the session.
          Promise.all([openedFor(preface, ping, 100), openedFor(Buffer.concat([preface, headers]), continuation, 400)])
        )
        console.log(`sessions without a request closed after ${pinging} ms (PINGs) and ${unfinished} ms (unfinished HEADERS)`)
        // Not a speed: the configured HEADERS_TIMEOUT_MS fires, neither early nor late.
        expect(pinging).toBeGreaterThanOrEqual(headersTimeout - 50)
        expect(pinging).toBeLessThanOrEqual(headersTimeout + slack)
        // GOAWAY after the headers timeout; the session ends one headers timeout later.
        expect(unfinished).toBeGreaterThanOrEqual(headersTimeout - 50)
        expect(unfinished).toBeLessThanOrEqual(2 * headersTimeout + slack)
      }))

    it.effect("a connection with no open stream is closed after IDLE_TIMEOUT_MS, however often it pings", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const session = yield* Effect.promise(() => h2Session(urls.workflow))
        const answered = yield* Effect.promise(() =>
          new Promise<number>((resolve) => {
            const stream = session.request({ ":path": "/healthz" })
            stream.on("response", (headers) => resolve(Number(headers[":status"])))
            stream.resume()
          })
        )
        expect(answered).toBe(200)
        const idleSince = Date.now()
        const pinging = setInterval(() => !session.closed && !session.destroyed && session.ping(() => {}), 100)
        const closed = yield* Effect.promise(() => sessionClosed(session, idleTimeout + slack + 2_000))
        clearInterval(pinging)
        const idleFor = Date.now() - idleSince
        session.destroy()
        expect(closed).toBe(true)
        // Not a speed: the configured IDLE_TIMEOUT_MS fires, neither early nor late.
        expect(idleFor).toBeGreaterThanOrEqual(idleTimeout - 50)
        expect(idleFor).toBeLessThanOrEqual(idleTimeout + slack)
      }))
  })
})

const inFlightCap = 4

describe(`requests in flight per port (MAX_REQUESTS_IN_FLIGHT = ${inFlightCap}; ${testDatabaseKind})`, () => {
  // The capped requests must still be in flight while REST, Connect and gRPC are refused: the
  // request timeout that ends them (408) is set well past what a busy machine takes for those
  // three calls (1.5 s was not, with both cores loaded).
  layer(
    inProcessServers({ requestTimeoutMillis: 6_000, maxRequestsInFlight: inFlightCap }),
    { timeout: 120_000, excludeTestServices: true }
  )((it) => {
    it.effect("over the cap a request is answered unavailable at once in every style; health still answers; the port serves again after", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const session = yield* Effect.promise(() => h2Session(urls.org))
        const slow = Array.from({ length: inFlightCap }, () =>
          neverEndingRequest(
            session,
            { ":method": "PUT", ":path": `/orgs/${randomUUID()}`, "content-type": "application/json" },
            { first: "{", giveUpAfter: 30_000 }
          ))
        // Once the capped requests hold every place (a condition, not a pause: on a busy machine
        // their HEADERS may take a while to arrive), a REST call is refused.
        const started = Date.now()
        let rest = yield* Effect.promise(() => fetch(`${urls.org}/orgs/${randomUUID()}`))
        while (rest.status !== 503 && Date.now() - started < 30_000) {
          yield* Effect.sleep(50)
          rest = yield* Effect.promise(() => fetch(`${urls.org}/orgs/${randomUUID()}`))
        }
        expect(rest.status).toBe(503)
        expect(rest.headers.get("retry-after")).toBe("1")
        expect(yield* Effect.promise(() => rest.json())).toMatchObject({ code: 14 })
        const connect = yield* Effect.promise(() =>
          fetch(`${urls.org}/org.v1beta1.OrgService/GetOrg`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ id: randomUUID() })
          })
        )
        expect(connect.status).toBe(503)
        expect(yield* Effect.promise(() => connect.json())).toMatchObject({ code: "unavailable" })
        const grpc = yield* Effect.promise(() => grpcJsCall(urls.org, "org.v1beta1.OrgService/GetOrg", { message: { id: randomUUID() } }))
        expect(grpc.code).toBe(14)
        const refusedIn = Date.now() - started
        console.log(`over MAX_REQUESTS_IN_FLIGHT: REST, Connect and gRPC refused in ${refusedIn} ms together`)
        // Refused, not queued, told by the answers rather than a time: a request made to wait for a
        // slot would get one when the request timeout frees them, and be answered (404), not 503.

        // Health is not work: it answers on a saturated port.
        expect((yield* Effect.promise(() => fetch(`${urls.org}/healthz`))).status).toBe(200)
        const health = createClient(Health, createGrpcTransport({ baseUrl: urls.org }))
        expect((yield* Effect.promise(() => health.check({ service: "" }))).status).toBe(HealthCheckResponse_ServingStatus.SERVING)

        const outcomes = yield* Effect.promise(() => Promise.all(slow))
        expect(outcomes.map((o) => o.status)).toEqual(outcomes.map(() => 408))
        session.destroy()
        expect((yield* Effect.promise(() => fetch(`${urls.org}/orgs/${randomUUID()}`))).status).toBe(404)
      }))
  })
})

const token = "s3cret-token-for-http2-tests"

describe(`authentication before the body, over HTTP/2 (${testDatabaseKind})`, () => {
  layer(
    // SCHEMA_ACCESS=token: with it open (the default), a token-less GraphQL request is let through
    // to tell introspection by its document, so its body is read (schema-access.test.ts).
    inProcessServers({ apiToken: Option.some(Redacted.make(token)), schemaAccess: "token", requestTimeoutMillis: 10_000 }),
    { timeout: 120_000, excludeTestServices: true }
  )((it) => {
    it.effect("a token-less call whose body never ends is refused at once in every style", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const calls = slowCalls("workflow").map((call) => ({
          ...call,
          headers: { ...call.headers, ":path": call.headers[":path"].replace("org.v1beta1.OrgService/CreateOrg", "workflow.v1beta1.WorkflowService/CreateOnboardingWorkflow") }
        }))
        const outcomes = yield* Effect.promise(() => sendNeverEnding(calls, () => urls.workflow))
        const expected: Record<string, { status: number; code: unknown }> = {
          "REST": { status: 401, code: 16 },
          "Connect JSON": { status: 401, code: "unauthenticated" },
          "Connect binary": { status: 401, code: "unauthenticated" },
          "gRPC": { status: 200, code: "16" },
          "gRPC-Web": { status: 200, code: "16" },
          "GraphQL": { status: 401, code: "UNAUTHENTICATED" },
          "/rpc": { status: 401, code: 16 }
        }
        expect(answers(calls, outcomes)).toEqual(calls.map((call) => ({ style: call.style, ...expected[call.style] })))
        // Refused before the body, told by the status rather than a time: the body never ends, so a
        // server waiting for it would answer nothing before the client gives up (5 s), nor anything
        // but the request timeout's 408 (10 s). Then the server ends the stream itself.
        for (const outcome of outcomes) {
          // Told to stop sending, the answer standing (RST_STREAM NO_ERROR).
          expect(outcome.rstCode).toBe(0)
          expect(outcome.gaveUp).toBe(false)
        }
        console.log(`token-less never-ending HTTP/2 calls answered after ${calls.map((c, i) => `${c.style} ${outcomes[i]!.answeredAfter} ms`).join(", ")}`)
      }))

    it.effect("a token-less Connect streaming request gets its refusal in an end-of-stream message", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const answer = yield* Effect.promise(() =>
          connectStream(urls.org, "org.v1beta1.OrgService/CreateOrg", envelope(protoBytes(CreateOrgRequestSchema, { name: "X" })))
        )
        expect(answer).toMatchObject({ status: 200, code: "unauthenticated", message: "missing or invalid bearer token" })
      }))

    it.effect("health stays open without a token; the service itself needs it, over a real gRPC client", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const health = createClient(Health, createGrpcTransport({ baseUrl: urls.org }))
        expect((yield* Effect.promise(() => health.check({ service: "" }))).status).toBe(HealthCheckResponse_ServingStatus.SERVING)
        const org = { id: randomUUID(), name: "Guarded" }
        expect((yield* Effect.promise(() => grpcJsCall(urls.org, "org.v1beta1.OrgService/CreateOrg", { message: org }))).code).toBe(16)
        // Only health's own paths are open: a path that merely starts like one is not.
        const body = JSON.stringify(org)
        for (const path of ["/grpc.health.v1.Health/../org.v1beta1.OrgService/CreateOrg", "/grpc.health.v1.Health/Check/x"]) {
          const sneaky = yield* Effect.promise(() =>
            rawHttp(urls.org, `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`)
          )
          expect({ path, status: sneaky.status }).toEqual({ path, status: 401 })
        }
        const withToken = createClient(
          OrgService,
          createGrpcTransport({
            baseUrl: urls.org,
            interceptors: [(next) => (request) => {
              request.header.set("authorization", `Bearer ${token}`)
              return next(request)
            }]
          })
        )
        expect((yield* Effect.promise(() => withToken.createOrg(create(CreateOrgRequestSchema, org)))).org?.id).toBe(org.id)
      }))
  })
})
