import { timestampFromDate } from "@bufbuild/protobuf/wkt"
import { create } from "@bufbuild/protobuf"
import { createClient, type Transport } from "@connectrpc/connect"
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node"
import { SqlClient } from "@effect/sql"
import { afterAll, describe, expect, it, layer } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import * as http from "node:http"
import * as http2 from "node:http2"
import * as net from "node:net"
import {
  CreateOnboardingWorkflowRequestSchema,
  WorkflowService
} from "../../src/gen/workflow/v1beta1/workflow_pb.js"
import { DatabaseHealthLive } from "../../src/services/database/DatabaseHealth.js"
import { unitOfWorkReferences } from "../../src/services/database/Transient.js"
import { Licenses } from "../../src/services/Licenses.js"
import { Onboarding } from "../../src/services/Onboarding.js"
import { WorkflowRuns } from "../../src/services/WorkflowRuns.js"
import { Orgs } from "../../src/services/Orgs.js"
import { Profiles } from "../../src/services/Profiles.js"
import { listen } from "../../src/transports/http/PortListener.js"
import { Services } from "../support/Services.js"
import { recordFigures } from "../support/Figures.js"
import { inProcessServers } from "../support/InProcessServers.js"
import { rowCounts } from "../support/rows.js"
import { TestDatabase, testDatabaseKind } from "../support/TestDatabase.js"
import { grpcJsCall } from "./support/wire.js"
import { h2Session, sessionClosed } from "./support/slowStreams.js"

/*
 * IDLE_TIMEOUT_MS closes connections with nothing to do; a call the server is still working on is
 * not nothing. Each workflow here takes four idle timeouts inside its transaction (a slowed Orgs
 * layer, as a loaded database would be), over HTTP/1.1 and HTTP/2, through REST, Connect and gRPC
 * clients: the answer must arrive, and agree with what the database holds. Before the fix each was
 * cut at the idle timeout (HTTP/1.1: ECONNRESET; HTTP/2: the session destroyed, its streams reset)
 * while the transaction ran on and committed: an error for a write that happened, which a client
 * without a workflow id retries into a second onboarding. Once answered, a connection is idle again
 * and is closed as before, also when its client does not read the answer.
 */

const idleTimeout = 400
/** How long each workflow's org insert is held up inside its transaction: four idle timeouts. */
const orgDelay = Duration.millis(4 * idleTimeout)
/** How long a test waits for an idle connection to be closed before it fails. */
const giveUpAfter = idleTimeout + 5_000

const createWorkflow = "workflow.v1beta1.WorkflowService/CreateOnboardingWorkflow"

/** Every org insert of a workflow waits `orgDelay` inside its transaction. */
const SlowOrgs = Layer.effect(
  Orgs,
  Effect.map(Orgs, (orgs) => Orgs.make({ ...orgs, create: (org) => Effect.zipLeft(orgs.create(org), Effect.sleep(orgDelay)) }))
).pipe(Layer.provide(Orgs.Default))

const SlowWorkflows = Layer.mergeAll(
  Orgs.Default,
  Profiles.Default,
  Licenses.Default,
  Onboarding.DefaultWithoutDependencies.pipe(Layer.provide([SlowOrgs, Profiles.Default, Licenses.Default, WorkflowRuns.Sql])),
  DatabaseHealthLive,
  unitOfWorkReferences
).pipe(Layer.provideMerge(TestDatabase))

const workflowJson = () =>
  JSON.stringify({
    license: { start: "2023-11-16T12:00:00Z", end: "2024-11-16T12:00:00Z" },
    org: { name: "Initech" },
    profile: { fullName: "Peter Gibbons" }
  })

const workflowMessage = () =>
  create(CreateOnboardingWorkflowRequestSchema, {
    license: {
      start: timestampFromDate(new Date("2023-11-16T12:00:00Z")),
      end: timestampFromDate(new Date("2024-11-16T12:00:00Z"))
    },
    org: { name: "Initech" },
    profile: { fullName: "Peter Gibbons" }
  })

/** A workflow's answer as each client gives it: the four ids, or the error it saw. */
type Outcome =
  | { readonly answered: "success"; readonly workflowId: string; readonly orgId: string; readonly profileId: string; readonly licenseId: string }
  | { readonly answered: string }

const failed = (error: unknown): Outcome => ({
  answered: `error: ${(error as { code?: unknown }).code ?? ""} ${(error as Error).message ?? String(error)}`
})

const fromIds = (ids: { workflowId?: string; orgId?: string; profileId?: string; licenseId?: string }): Outcome => ({
  answered: "success",
  workflowId: ids.workflowId ?? "",
  orgId: ids.orgId ?? "",
  profileId: ids.profileId ?? "",
  licenseId: ids.licenseId ?? ""
})

/** What each style saw, for the report: its answer, how long it took, runs written. */
const figures: Record<string, unknown> = { database: testDatabaseKind, idleTimeoutMillis: idleTimeout, orgDelayMillis: Duration.toMillis(orgDelay) }

const storedRun = (workflowId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ workflowId: string; orgId: string; profileId: string; licenseId: string }>`
        select workflow_id::text as "workflowId", org_id::text as "orgId", profile_id::text as "profileId",
               license_id::text as "licenseId"
        from onboarding_runs where workflow_id = ${workflowId}`
  )

/**
 * Runs one workflow that outlasts the idle timeout by far; the client must get its answer, and the
 * answer must be the one run the database holds (rows counted before and after: one of each).
 */
const longWorkflow = (style: string, send: (workflowUrl: string) => Promise<Outcome>) =>
  Effect.gen(function*() {
    const { workflow } = yield* Services
    const before = yield* rowCounts
    const started = Date.now()
    const outcome = yield* Effect.promise(() => send(workflow))
    const answeredAfter = Date.now() - started
    // After an error, the transaction the server did not stop may still commit: wait it out.
    if (outcome.answered !== "success") yield* Effect.sleep(Duration.sum(orgDelay, "1 second"))
    const after = yield* rowCounts
    const written = after.runs - before.runs
    figures[style] = { answered: outcome.answered, answeredAfter, runsWritten: written }
    expect({ style, answered: outcome.answered, runsWritten: written }).toEqual({ style, answered: "success", runsWritten: 1 })
    expect(after).toEqual({ orgs: before.orgs + 1, profiles: before.profiles + 1, licenses: before.licenses + 1, runs: before.runs + 1 })
    if ("workflowId" in outcome) {
      const { answered: _, ...ids } = outcome
      expect(yield* storedRun(outcome.workflowId)).toEqual([ids])
    }
  })

/** REST over HTTP/1.1 with a keep-alive agent; also hands back the connection it used. */
const restOverHttp1 = (workflowUrl: string, agent: http.Agent) =>
  new Promise<{ readonly outcome: Outcome; readonly socket: net.Socket | undefined }>((resolve) => {
    let socket: net.Socket | undefined
    const body = workflowJson()
    const request = http.request(`${workflowUrl}/workflow/workflows/onboarding`, {
      method: "POST",
      agent,
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) }
    }, (response) => {
      let text = ""
      response.setEncoding("utf8")
      response.on("data", (chunk: string) => (text += chunk))
      response.on("end", () =>
        resolve({
          outcome: response.statusCode === 200 ? fromIds(JSON.parse(text)) : { answered: `HTTP ${response.statusCode} ${text}` },
          socket
        }))
      response.on("error", (error) => resolve({ outcome: failed(error), socket }))
    })
    request.on("socket", (s) => (socket = s))
    request.on("error", (error) => resolve({ outcome: failed(error), socket }))
    request.end(body)
  })

/** Connect JSON over one raw HTTP/2 session, which the caller keeps to watch. */
const connectJsonOverHttp2 = (session: http2.ClientHttp2Session) =>
  new Promise<Outcome>((resolve) => {
    const stream = session.request({ ":method": "POST", ":path": `/${createWorkflow}`, "content-type": "application/json" })
    let status: number | undefined
    let text = ""
    stream.setEncoding("utf8")
    stream.on("response", (headers) => (status = Number(headers[":status"])))
    stream.on("data", (chunk: string) => (text += chunk))
    stream.on("error", (error) => resolve(failed(error)))
    stream.on("close", () =>
      resolve(
        status === 200
          ? fromIds(JSON.parse(text))
          : { answered: `HTTP ${status} rst ${stream.rstCode} ${text}` }
      ))
    stream.end(workflowJson())
  })

/** connect-node's typed client over `transport`. */
const connectNode = (transport: Transport) =>
  createClient(WorkflowService, transport).createOnboardingWorkflow(workflowMessage()).then(fromIds, failed)

/** Resolves with how long `socket` stayed open after this call, or undefined after `millis`. */
const socketClosed = (socket: net.Socket, millis: number) =>
  new Promise<number | undefined>((resolve) => {
    const since = Date.now()
    if (socket.destroyed) return resolve(0)
    const timer = setTimeout(() => resolve(undefined), millis)
    socket.once("close", () => {
      clearTimeout(timer)
      resolve(Date.now() - since)
    })
  })

afterAll(() => recordFigures(`idle-in-flight-${testDatabaseKind === "PostgreSQL" ? "postgres" : "embedded"}`, figures))

describe(`IDLE_TIMEOUT_MS leaves a call in flight alone (${testDatabaseKind})`, () => {
  layer(inProcessServers({ idleTimeoutMillis: idleTimeout }, SlowWorkflows), { timeout: 120_000, excludeTestServices: true })(
    (it) => {
      it.effect("HTTP/1.1 (REST, keep-alive): the long workflow is answered; then the idle connection is closed", () =>
        Effect.gen(function*() {
          const style = "REST over HTTP/1.1 (node:http)"
          const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
          let socket: net.Socket | undefined
          yield* longWorkflow(style, async (url) => {
            const reply = await restOverHttp1(url, agent)
            socket = reply.socket
            return reply.outcome
          })
          // Idle once answered: closed by the server after the idle timeout, as before.
          const closedAfter = yield* Effect.promise(() => socketClosed(socket!, giveUpAfter))
          agent.destroy()
          figures[style] = { ...figures[style] as object, idleConnectionClosedAfter: closedAfter }
          expect(closedAfter).toBeDefined()
        }))

      it.effect("HTTP/1.1 (Connect JSON, connect-node): the long workflow is answered", () =>
        longWorkflow("Connect JSON over HTTP/1.1 (connect-node)", (url) =>
          connectNode(createConnectTransport({ baseUrl: url, httpVersion: "1.1" }))))

      it.effect("HTTP/2 (Connect JSON, node:http2): the long workflow is answered; then the session, with no open stream, is closed", () =>
        Effect.gen(function*() {
          const style = "Connect JSON over HTTP/2 (node:http2)"
          const { workflow } = yield* Services
          const session = yield* Effect.promise(() => h2Session(workflow))
          yield* longWorkflow(style, () => connectJsonOverHttp2(session))
          const since = Date.now()
          const closed = yield* Effect.promise(() => sessionClosed(session, giveUpAfter))
          figures[style] = { ...figures[style] as object, idleSessionClosedAfter: closed ? Date.now() - since : undefined }
          session.destroy()
          expect(closed).toBe(true)
        }))

      it.effect("HTTP/2: a client that reads no answer after a long call is still closed after the idle timeout", () =>
        Effect.gen(function*() {
          const { workflow } = yield* Services
          // A stream window of 0: the server may send the answer's headers, not a byte of its body.
          const session = http2.connect(workflow, { settings: { initialWindowSize: 0 } })
          session.on("error", () => {})
          const stream = session.request({ ":method": "POST", ":path": `/${createWorkflow}`, "content-type": "application/json" })
          stream.on("error", () => {})
          const status = yield* Effect.promise(() =>
            new Promise<number | undefined>((resolve) => {
              stream.on("response", (headers) => resolve(Number(headers[":status"])))
              stream.on("close", () => resolve(undefined))
              stream.end(workflowJson())
            })
          )
          const since = Date.now()
          const closed = yield* Effect.promise(() => sessionClosed(session, giveUpAfter))
          figures["HTTP/2 client reading nothing"] = { status, sessionClosedAfter: closed ? Date.now() - since : undefined }
          session.destroy()
          // The answer was made (not cut at the idle timeout), and its undelivered body does not
          // keep the connection: a client that reads nothing cannot hold it.
          expect(status).toBe(200)
          expect(closed).toBe(true)
        }))

      it.effect("HTTP/2 (Connect binary, connect-node): the long workflow is answered", () =>
        longWorkflow("Connect binary over HTTP/2 (connect-node)", (url) =>
          connectNode(createConnectTransport({ baseUrl: url, httpVersion: "2", useBinaryFormat: true }))))

      it.effect("gRPC unary (@grpc/grpc-js): the long workflow is answered", () =>
        longWorkflow("gRPC (@grpc/grpc-js)", (url) =>
          grpcJsCall(url, createWorkflow, {
            message: {
              license: { start: { seconds: "1700136000" }, end: { seconds: "1731758400" } },
              org: { name: "Initech" },
              profile: { fullName: "Peter Gibbons" }
            }
          }).then((answer) =>
            answer.code === "ok" ? fromIds(answer.body as object) : { answered: `error: ${answer.code} ${answer.message}` }
          )))

      it.effect("gRPC unary (connect-node): the long workflow is answered", () =>
        longWorkflow("gRPC (connect-node)", (url) => connectNode(createGrpcTransport({ baseUrl: url }))))
    }
  )
})

describe("IDLE_TIMEOUT_MS and a client that reads nothing (HTTP/1.1, the listener alone)", () => {
  // An answer larger than loopback's socket buffers hold, so that a client that reads nothing
  // leaves most of it unsent: a service's answers are small, hence a handler of the test's own.
  const answerBytes = 64 * 1024 * 1024

  it.effect("a long call is answered; a client that then stops reading it is disconnected", () =>
    Effect.gen(function*() {
      let serverSideClosed: (() => void) | undefined
      const closedByServer = new Promise<void>((resolve) => (serverSideClosed = resolve))
      const { port } = yield* listen((request, response) => {
        request.socket.once("close", () => serverSideClosed?.())
        request.resume()
        request.once("end", () => setTimeout(() => response.end(Buffer.alloc(answerBytes, "a")), Duration.toMillis(orgDelay)))
      }, {
        host: "127.0.0.1",
        port: 0,
        shutdownGraceMillis: 100,
        maxConnections: 10,
        maxConnectionsPerAddress: 0,
        headersTimeoutMillis: 10_000,
        requestTimeoutMillis: 30_000,
        idleTimeoutMillis: idleTimeout,
        maxStreamsPerConnection: 100,
        maxStreamResets: 400
      })
      const client = net.connect(port, "127.0.0.1", () => client.write("GET / HTTP/1.1\r\nhost: idle\r\n\r\n"))
      client.on("error", () => {})
      // The first bytes of the answer, then the client stops reading for good.
      const statusLine = yield* Effect.promise(() =>
        new Promise<string>((resolve) => {
          client.once("data", (chunk: Buffer) => {
            client.pause()
            resolve(chunk.toString("latin1").split("\r\n")[0]!)
          })
          client.once("close", () => resolve("closed without an answer"))
        })
      )
      const started = Date.now()
      const closed = yield* Effect.promise(() =>
        Promise.race([closedByServer.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), giveUpAfter))])
      )
      figures["HTTP/1.1 client reading nothing"] = { statusLine, serverClosedAfter: closed ? Date.now() - started : undefined }
      client.destroy()
      expect(statusLine).toBe("HTTP/1.1 200 OK")
      expect(closed).toBe(true)
    }).pipe(Effect.scoped))
})
