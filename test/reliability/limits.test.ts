import { createClient } from "@connectrpc/connect"
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node"
import { describe, expect, it, layer } from "@effect/vitest"
import { RpcClient } from "@effect/rpc"
import { Effect, Exit } from "effect"
import { randomUUID } from "node:crypto"
import * as http from "node:http"
import * as http2 from "node:http2"
import * as net from "node:net"
import { OrgService } from "../../src/gen/org/v1beta1/org_pb.js"
import { listen } from "../../src/transports/http/PortListener.js"
import { OrgOperations } from "../../src/contract/OrgOperations.js"
import { rpcProtocol } from "../../src/client/RpcProtocol.js"
import { Services } from "../support/Services.js"
import { inProcessServers } from "../support/InProcessServers.js"
import { testDatabaseKind } from "../support/TestDatabase.js"

const KiB = 1024
const MiB = 1024 * KiB
const maxBody = 4 * KiB
const hugeBody = 64 * MiB
const graphqlResponseJson = "application/graphql-response+json"

// ---------------------------------------------------------------------------------------------
// Clients that misbehave on purpose

interface Upload {
  readonly status: number | undefined
  readonly body: string
  /** Body bytes the client had handed to its socket when the answer's headers arrived. */
  readonly sentBeforeAnswer: number
  readonly error?: string
}

/**
 * POSTs a 64 MiB body in 64 KiB chunks over HTTP/1.1 (chunked; or only declares its length and
 * sends none of it), stopping as soon as an answer arrives. It yields to the event loop
 * after every chunk, as a client on a real network would be held back by it; otherwise loopback
 * lets it hand megabytes to the kernel before the in-process server has run at all.
 */
const upload = (url: string, options: { readonly contentType: string; readonly declareLength?: boolean }) =>
  new Promise<Upload>((resolve) => {
    const target = new URL(url)
    const chunk = Buffer.alloc(64 * KiB, "a")
    chunk.write("{\"name\":\"")
    let sent = 0
    let answered = false
    let wake = () => {}
    const finish = (result: Upload) => {
      answered = true
      wake()
      request.destroy()
      resolve(result)
    }
    const request = http.request({
      host: target.hostname,
      port: target.port,
      path: target.pathname,
      method: "POST",
      agent: false,
      headers: {
        connection: "keep-alive",
        "content-type": options.contentType,
        ...(options.declareLength ? { "content-length": String(hugeBody) } : {})
      }
    })
    request.on("response", (response) => {
      const sentBeforeAnswer = sent
      let body = ""
      response.setEncoding("utf8")
      response.on("data", (text: string) => body += text)
      response.on("end", () => finish({ status: response.statusCode, body, sentBeforeAnswer }))
    })
    request.on("error", (error) => finish({ status: undefined, body: "", sentBeforeAnswer: sent, error: error.message }))
    if (options.declareLength) return request.flushHeaders()
    void (async () => {
      while (!answered && sent < hugeBody) {
        const flushed = request.write(chunk)
        sent += chunk.length
        await new Promise<void>((next) => {
          wake = next
          if (flushed) setImmediate(next)
          else request.once("drain", () => setImmediate(next))
        })
      }
      if (!answered) request.end()
    })()
  })

/** The same over HTTP/2 (prior knowledge), for the styles that also answer there. */
const upload2 = (url: string, path: string, contentType: string) =>
  new Promise<Upload>((resolve) => {
    const session = http2.connect(url)
    const chunk = Buffer.alloc(64 * KiB, "a")
    let sent = 0
    let answered = false
    const stream = session.request({ ":method": "POST", ":path": path, "content-type": contentType })
    const finish = (result: Upload) => {
      answered = true
      session.destroy()
      resolve(result)
    }
    stream.on("response", (headers) => {
      const sentBeforeAnswer = sent
      let body = ""
      stream.setEncoding("utf8")
      stream.on("data", (text: string) => body += text)
      stream.on("end", () => finish({ status: Number(headers[":status"]), body, sentBeforeAnswer }))
    })
    stream.on("error", (error) => finish({ status: undefined, body: "", sentBeforeAnswer: sent, error: error.message }))
    void (async () => {
      while (!answered && sent < hugeBody) {
        const flushed = stream.write(chunk)
        sent += chunk.length
        await new Promise<void>((next) => flushed ? setImmediate(next) : stream.once("drain", () => setImmediate(next)))
      }
    })()
  })

/**
 * A gRPC call over raw HTTP/2 whose one message declares 64 MiB in its envelope and then streams
 * it: the answer's `grpc-status`, and how much had been sent when it arrived.
 */
const hugeGrpcMessage = (url: string) =>
  new Promise<{ grpcStatus: string | undefined; sentBeforeAnswer: number }>((resolve, reject) => {
    const session = http2.connect(url)
    session.on("error", reject)
    const stream = session.request({
      ":method": "POST",
      ":path": "/org.v1beta1.OrgService/CreateOrg",
      "content-type": "application/grpc",
      te: "trailers"
    })
    const envelope = Buffer.alloc(5)
    envelope.writeUInt32BE(hugeBody, 1)
    const chunk = Buffer.alloc(64 * KiB, 0x0a)
    let sent = 0
    let answered = false
    const finish = (grpcStatus: unknown) => {
      answered = true
      session.destroy()
      resolve({ grpcStatus: grpcStatus as string | undefined, sentBeforeAnswer: sent })
    }
    // An error answer is trailers-only: its status comes with the response headers.
    stream.on("response", (headers) => headers["grpc-status"] !== undefined && finish(headers["grpc-status"]))
    stream.on("trailers", (trailers) => finish(trailers["grpc-status"]))
    stream.on("error", reject)
    stream.resume()
    stream.write(envelope)
    void (async () => {
      while (!answered && sent < hugeBody) {
        const flushed = stream.write(chunk)
        sent += chunk.length
        await new Promise<void>((next) => flushed ? setImmediate(next) : stream.once("drain", () => setImmediate(next)))
      }
    })()
  })

interface Raw {
  readonly socket: net.Socket
  readonly received: () => string
  /** Resolves, once the server has closed the connection, with the milliseconds it was open. */
  readonly closed: Promise<number>
  readonly isClosed: () => boolean
}

/** A bare TCP connection to a port, for clients that do not speak HTTP properly. */
const rawConnection = (url: string) =>
  new Promise<Raw>((resolve, reject) => {
    const target = new URL(url)
    const socket = net.connect(Number(target.port), target.hostname)
    let received = ""
    let open = true
    socket.setEncoding("latin1")
    socket.on("data", (text: string) => received += text)
    socket.on("error", () => {})
    socket.once("error", reject)
    socket.once("connect", () => {
      const opened = Date.now()
      const closed = new Promise<number>((done) =>
        socket.once("close", () => {
          open = false
          done(Date.now() - opened)
        })
      )
      resolve({ socket, received: () => received, closed, isClosed: () => !open })
    })
  })

/** Writes `pieces` one every `everyMillis` until the server closes the connection. */
const dribble = (raw: Raw, pieces: ReadonlyArray<string>, everyMillis: number) => {
  let next = 0
  const timer = setInterval(() => {
    if (raw.isClosed() || next >= pieces.length) return clearInterval(timer)
    raw.socket.write(pieces[next++]!)
  }, everyMillis)
  raw.closed.finally(() => clearInterval(timer))
}

/**
 * How long a test waits for the server to close a connection before it fails instead of hanging.
 * A ceiling, not the expectation: a loaded machine fires the server's timers late (CI once saw a
 * 500 ms headers timeout close after more than 1,100 ms), so each test shows why the connection
 * closed by what the client received and by a lower bound, which a late timer cannot break.
 */
const closeCeilingMillis = 30_000

/** Fails the test instead of hanging when the server never closes the connection. */
const closed = (raw: Raw) =>
  Effect.promise(() => raw.closed).pipe(
    Effect.timeoutFail({
      duration: closeCeilingMillis,
      onTimeout: () => new Error(`connection still open after ${closeCeilingMillis} ms`)
    }),
    Effect.orDie
  )

const graphql = (url: string, body: unknown, accept = graphqlResponseJson) =>
  Effect.promise(async () => {
    const response = await fetch(`${url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", accept },
      body: JSON.stringify(body)
    })
    return {
      status: response.status,
      contentType: response.headers.get("content-type"),
      body: await response.json() as {
        data?: unknown
        errors?: ReadonlyArray<{ message: string; extensions?: { code?: string } }>
      }
    }
  })

const codeOf = (call: Promise<unknown>) => call.then(() => "ok" as const, (e: { code?: number }) => e.code)
const messageOf = (call: Promise<unknown>) => call.then(() => "ok", (e: { rawMessage?: string }) => e.rawMessage)

const orgPath = () => `/orgs/${randomUUID()}`

// ---------------------------------------------------------------------------------------------

describe(`request body cap (MAX_BODY_BYTES = ${maxBody}; ${testDatabaseKind})`, () => {
  layer(
    inProcessServers({ readMaxBytes: maxBody, graphqlMaxDepth: 3, graphqlMaxFields: 6 }),
    { timeout: 120_000, excludeTestServices: true }
  )((it) => {
    const named = expect.stringContaining("MAX_BODY_BYTES")
    const styles = [
      { style: "REST", path: orgPath, status: 413, answer: { code: 8, message: named, details: [] } },
      {
        style: "Connect JSON",
        path: () => "/org.v1beta1.OrgService/CreateOrg",
        status: 429, // Connect's own HTTP status for resource_exhausted
        answer: { code: "resource_exhausted", message: named }
      },
      {
        style: "GraphQL",
        path: () => "/graphql",
        status: 413,
        answer: { errors: [{ message: named, extensions: { code: "RESOURCE_EXHAUSTED" } }] }
      },
      { style: "/rpc", path: () => "/rpc", status: 413, answer: { code: 8, message: named, details: [] } }
    ] as const

    for (const { answer, path, status, style } of styles) {
      it.effect(`${style}: a chunked 64 MiB body is refused while the client is still sending it`, () =>
        Effect.gen(function*() {
          const urls = yield* Services
          const result = yield* Effect.promise(() => upload(urls.org + path(), { contentType: "application/json" }))
          expect(result.error).toBeUndefined()
          expect(result.status).toBe(status)
          expect(JSON.parse(result.body)).toMatchObject(answer)
          // The answer came after a few chunks, not after the body: the rest was never read into memory.
          expect(result.sentBeforeAnswer).toBeLessThan(2 * MiB)
        }))

      it.effect(`${style}: a declared Content-Length over the cap is refused before any of the body is sent`, () =>
        Effect.gen(function*() {
          const urls = yield* Services
          const result = yield* Effect.promise(() =>
            upload(urls.org + path(), { contentType: "application/json", declareLength: true })
          )
          expect(result.status).toBe(status)
          expect(JSON.parse(result.body)).toMatchObject(answer)
          expect(result.sentBeforeAnswer).toBe(0)
        }))

      it.effect(`${style}: after the refusal the rest of the body is skipped and the connection serves on`, () =>
        Effect.gen(function*() {
          const urls = yield* Services
          const raw = yield* Effect.promise(() => rawConnection(urls.org))
          const body = `{"name":"${"a".repeat(5 * maxBody)}"}`
          // Sent whole, with the next request right behind it on the same connection.
          raw.socket.write(
            `POST ${path()} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
              `content-length: ${body.length}\r\n\r\n${body}` +
              `GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`
          )
          yield* Effect.promise(async () => {
            while (!raw.received().includes("{\"status\":\"ok\"}") && !raw.isClosed()) {
              await new Promise((resolve) => setTimeout(resolve, 10))
            }
          }).pipe(Effect.timeout(5_000), Effect.orDie)
          raw.socket.destroy()
          expect(raw.received()).toMatch(new RegExp(`^HTTP/1.1 ${status} `))
          expect(raw.received()).toMatch(/HTTP\/1.1 200 OK[^]*\{"status":"ok"\}$/)
        }))
    }

    it.effect("REST and GraphQL over HTTP/2 refuse the chunked body the same way", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const rest = yield* Effect.promise(() => upload2(urls.org, orgPath(), "application/json"))
        const graphqlAnswer = yield* Effect.promise(() => upload2(urls.org, "/graphql", "application/json"))
        expect(rest.status).toBe(413)
        expect(JSON.parse(rest.body)).toMatchObject({ code: 8 })
        expect(rest.sentBeforeAnswer).toBeLessThan(2 * MiB)
        expect(graphqlAnswer.status).toBe(413)
        expect(graphqlAnswer.sentBeforeAnswer).toBeLessThan(2 * MiB)
      }))

    it.effect("gRPC: a message over the cap is status 8 before the client has sent it", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const result = yield* Effect.promise(() => hugeGrpcMessage(urls.org))
        expect(result.grpcStatus).toBe("8")
        expect(result.sentBeforeAnswer).toBeLessThan(2 * MiB)
      }))

    it.effect("every Connect client style gets resource_exhausted (8) naming MAX_BODY_BYTES for a message over the cap", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const transports = [
          createConnectTransport({ baseUrl: urls.org, httpVersion: "1.1" }),
          createConnectTransport({ baseUrl: urls.org, httpVersion: "2", useBinaryFormat: true }),
          createGrpcTransport({ baseUrl: urls.org }),
          createGrpcWebTransport({ baseUrl: urls.org, httpVersion: "1.1" })
        ]
        for (const transport of transports) {
          const orgs = createClient(OrgService, transport)
          expect(yield* Effect.promise(() => codeOf(orgs.createOrg({ id: randomUUID(), name: "a".repeat(2 * maxBody) }))))
            .toBe(8)
          // Named by the setting that bounds it, not by connect-es's own option (readMaxBytes).
          expect(yield* Effect.promise(() => messageOf(orgs.createOrg({ id: randomUUID(), name: "a".repeat(2 * maxBody) }))))
            .toBe(`request message is larger than MAX_BODY_BYTES (${maxBody} bytes)`)
          // Under the cap the same call goes through.
          expect(yield* Effect.promise(() => codeOf(orgs.createOrg({ id: randomUUID(), name: "Small" })))).toBe("ok")
        }
      }))

    it.effect("the typed @effect/rpc client: a call over the cap fails and creates nothing; a small one works", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const call = (id: string, name: string) =>
          Effect.promise(() =>
            Effect.runPromiseExit(
              Effect.flatMap(RpcClient.make(OrgOperations), (client) => client.CreateOrg({ id, name })).pipe(
                Effect.scoped,
                Effect.provide(rpcProtocol(`${urls.org}/rpc`))
              ) as Effect.Effect<unknown, unknown>
            )
          )
        const refusedId = randomUUID()
        expect(Exit.isFailure(yield* call(refusedId, "a".repeat(2 * maxBody)))).toBe(true)
        expect((yield* Effect.promise(() => fetch(`${urls.org}/orgs/${refusedId}`))).status).toBe(404)
        expect(Exit.isSuccess(yield* call(randomUUID(), "Small"))).toBe(true)
      }))

    // -------------------------------------------------------------------------------------------
    // GraphQL query limits (GRAPHQL_MAX_DEPTH = 3, GRAPHQL_MAX_FIELDS = 6)

    it.effect("GraphQL: an operation at the depth limit runs; one level deeper is RESOURCE_EXHAUSTED (400)", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const atLimit = yield* graphql(urls.org, { query: `{ org(id: "${randomUUID()}") { org { id } } }` })
        expect(atLimit.status).toBe(200)
        expect(atLimit.body.errors?.[0]?.extensions?.code).toBe("NOT_FOUND")

        // No valid query on the org port's own types is 4 levels deep; the limit is checked before
        // validation, so a deeper selection is refused for its depth alone. (Introspection is
        // counted apart: see test/transports/graphql-introspection.)
        const deeper = yield* graphql(urls.org, { query: `{ org(id: "${randomUUID()}") { org { id { deeper } } } }` })
        expect(deeper.status).toBe(400)
        expect(deeper.contentType).toContain(graphqlResponseJson)
        expect(deeper.body.data).toBeUndefined()
        expect(deeper.body.errors).toEqual([
          expect.objectContaining({
            message: "the operation is 4 levels deep; at most 3 are allowed",
            extensions: { code: "RESOURCE_EXHAUSTED" }
          })
        ])
      }))

    it.effect("GraphQL: fields are counted with aliases and fragments expanded; over the limit is RESOURCE_EXHAUSTED", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const aliases = (n: number) => Array.from({ length: n }, (_, i) => `a${i}: __typename`).join(" ")
        const six = yield* graphql(urls.org, { query: `{ ${aliases(6)} }` })
        expect(six.status).toBe(200)
        expect(Object.keys(six.body.data as object)).toHaveLength(6)

        const seven = yield* graphql(urls.org, { query: `{ ${aliases(7)} }` })
        expect(seven.status).toBe(400)
        expect(seven.body.errors?.[0]).toMatchObject({
          message: "the operation selects 7 fields; at most 6 are allowed",
          extensions: { code: "RESOURCE_EXHAUSTED" }
        })

        // One fragment spread twice: 4 + 4 selections, though the answer would have only 4 keys.
        const fragments = yield* graphql(urls.org, {
          query: `{ ...F ...F } fragment F on Query { ${aliases(4)} }`
        })
        expect(fragments.status).toBe(400)
        expect(fragments.body.errors?.[0]?.extensions?.code).toBe("RESOURCE_EXHAUSTED")
      }))

    // graphql-http takes one operation per request; an array passes its "is an object" check and
    // then has no `query`, so a batch is the generic 400 "Missing query", whatever the client accepts.
    it.effect("GraphQL: a batch (a JSON array of operations) is refused with 400 and none of it runs", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const ids = [randomUUID(), randomUUID()]
        const batch = ids.map((id) => ({ query: `mutation { createOrg(input: {id: "${id}", name: "Batched"}) { org { id } } }` }))
        for (const accept of [graphqlResponseJson, "application/json"]) {
          const answer = yield* graphql(urls.org, batch, accept)
          expect(answer.status).toBe(400)
          expect(answer.body.data).toBeUndefined()
          expect(answer.body.errors).toEqual([{ message: "Missing query" }])
        }
        for (const id of ids) {
          expect((yield* Effect.promise(() => fetch(`${urls.org}/orgs/${id}`))).status).toBe(404)
        }
      }))
  })
})

// ---------------------------------------------------------------------------------------------

const headersTimeout = 500
const requestTimeout = 1_200
const idleTimeout = 800
const maxConnections = 6

describe(`slow clients and the connection cap (${testDatabaseKind})`, () => {
  layer(
    inProcessServers({
      headersTimeoutMillis: headersTimeout,
      requestTimeoutMillis: requestTimeout,
      idleTimeoutMillis: idleTimeout,
      maxConnections
    }),
    { timeout: 120_000, excludeTestServices: true }
  )((it) => {
    it.effect("a client that connects and says nothing is disconnected after the headers timeout", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const raw = yield* Effect.promise(() => rawConnection(urls.org))
        const openFor = yield* closed(raw)
        expect(openFor).toBeGreaterThanOrEqual(headersTimeout - 20)
        expect(raw.received()).toBe("")
      }))

    it.effect("a client that sends its request line and headers slowly gets 408 after the headers timeout", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const raw = yield* Effect.promise(() => rawConnection(urls.org))
        // Never-ending headers, one every 100 ms: the connection is never idle, the headers never done.
        dribble(raw, ["GET /healthz HT", "TP/1.1\r\n", ...Array.from({ length: 100 }, (_, i) => `x-slow-${i}: 1\r\n`)], 100)
        const openFor = yield* closed(raw)
        expect(openFor).toBeGreaterThanOrEqual(headersTimeout - 20)
        expect(raw.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/)
      }))

    it.effect("a client that dribbles the HTTP/2 preface is disconnected after the headers timeout", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const raw = yield* Effect.promise(() => rawConnection(urls.org))
        dribble(raw, [..."PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"], 50)
        const openFor = yield* closed(raw)
        expect(openFor).toBeGreaterThanOrEqual(headersTimeout - 20)
        expect(raw.received()).toBe("")
      }))

    it.effect("a client that sends its headers but dribbles the body is cut off after the request timeout", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const raw = yield* Effect.promise(() => rawConnection(urls.org))
        raw.socket.write(
          `PUT ${orgPath()} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n`
        )
        // One byte every 100 ms: never idle, and 1000 bytes would take 100 s.
        dribble(raw, ["{\"name\":\"", ...Array.from({ length: 990 }, () => "a")], 100)
        const openFor = yield* closed(raw)
        expect(openFor).toBeGreaterThanOrEqual(requestTimeout - 20)
        expect(raw.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/)
      }))

    it.effect("an idle keep-alive connection is closed after the idle timeout", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const raw = yield* Effect.promise(() => rawConnection(urls.org))
        // The connection's idle time starts after the answer, so after the request was sent: timed
        // from here, a client late to see the answer (a busy machine) cannot make it look short.
        const sentAt = Date.now()
        raw.socket.write("GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n")
        yield* Effect.promise(async () => {
          while (!raw.received().includes("{\"status\":\"ok\"}")) await new Promise((resolve) => setTimeout(resolve, 5))
        }).pipe(Effect.timeout(5_000), Effect.orDie)
        expect(raw.received()).toMatch(/^HTTP\/1\.1 200 OK\r\n[^]*Connection: keep-alive/i)
        yield* closed(raw)
        const openFor = Date.now() - sentAt
        expect(openFor).toBeGreaterThanOrEqual(idleTimeout - 20)
      }))

    it.effect(`at most ${maxConnections} connections are open at once; at the cap a new one is no longer refused but closes the one that has said nothing longest`, () =>
      Effect.gen(function*() {
        const urls = yield* Services
        // The license port: no other test here has connected to it, so no connection of theirs lingers.
        const sockets = yield* Effect.promise(() =>
          Promise.all(Array.from({ length: maxConnections + 5 }, () => rawConnection(urls.license)))
        )
        const stillOpen = () => sockets.filter((raw) => !raw.isClosed()).length
        // Each one over the cap took the place of an older one that had sent nothing (ConnectionPlaces.ts).
        yield* Effect.promise(async () => {
          while (stillOpen() > maxConnections) await new Promise((resolve) => setTimeout(resolve, 10))
        }).pipe(Effect.timeout(closeCeilingMillis), Effect.orDie)
        // One more, after those: it is answered, and one more of the silent ones has made room for it.
        const oneMore = yield* Effect.promise(() => rawConnection(urls.license))
        oneMore.socket.write("GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n")
        yield* Effect.promise(async () => {
          while (!oneMore.received().includes("{\"status\":\"ok\"}") || stillOpen() > maxConnections - 1) {
            await new Promise((resolve) => setTimeout(resolve, 10))
          }
        }).pipe(Effect.timeout(closeCeilingMillis), Effect.orDie)
        expect({ answered: /^HTTP\/1\.1 200 /.test(oneMore.received()), silentOpen: stillOpen(), oneMoreOpen: !oneMore.isClosed() })
          .toEqual({ answered: true, silentOpen: maxConnections - 1, oneMoreOpen: true })
        // The silent ones closed to make room were closed without a word.
        for (const raw of sockets.filter((raw) => raw.isClosed())) expect(raw.received()).toBe("")
        for (const raw of [...sockets, oneMore]) raw.socket.destroy()
      }))
  })
})

describe("timeout settings", () => {
  it.effect("a request timeout below the headers timeout still starts (the headers get the shorter one)", () =>
    Effect.gen(function*() {
      const { port } = yield* listen((_request, response) => response.end("ok"), {
        host: "127.0.0.1",
        port: 0,
        shutdownGraceMillis: 100,
        maxConnections: 10,
        maxConnectionsPerAddress: 0,
        headersTimeoutMillis: 10_000,
        requestTimeoutMillis: 5_000,
        idleTimeoutMillis: 60_000,
        maxStreamsPerConnection: 100,
        maxStreamResets: 400
      })
      const response = yield* Effect.promise(() => fetch(`http://127.0.0.1:${port}/`))
      expect(yield* Effect.promise(() => response.text())).toBe("ok")
    }).pipe(Effect.scoped))
})
