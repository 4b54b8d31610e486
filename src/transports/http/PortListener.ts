import { Data, Effect } from "effect"
import * as http from "node:http"
import * as http2 from "node:http2"
import * as net from "node:net"
import { connectionPlaces } from "../limits/ConnectionPlaces.js"
import { closeQuietSessions, withStreamDeadline } from "../limits/Http2Limits.js"
import { destroyEndedSessions } from "../limits/EndingSessions.js"
import { closeWhenIdle, noteAnswers } from "../limits/IdleTimeout.js"
import { limitStreamResets, startAfterRead } from "../limits/StreamResets.js"
import type { RequestHandler } from "./RequestHandler.js"


export class ListenError extends Data.TaggedError("ListenError")<{ readonly message: string }> {}

export interface ListenOptions {
  readonly host: string
  readonly port: number
  /** How long a shutdown waits for in-flight requests before closing their connections. */
  readonly shutdownGraceMillis: number
  /** Connections open at once; one more closes the one worth least, or is refused (ConnectionPlaces.ts). */
  readonly maxConnections: number
  /** Of those, the most one peer address may hold (0: no bound); more from it are refused. */
  readonly maxConnectionsPerAddress: number
  /** Time a client has to send its request's headers (and, on a new connection, its first bytes). */
  readonly headersTimeoutMillis: number
  /** Time a client has to send a whole request (HTTP/1.1, and each HTTP/2 stream). */
  readonly requestTimeoutMillis: number
  /** An idle connection (no request in flight) is closed after this long. */
  readonly idleTimeoutMillis: number
  /** Requests open at once on one HTTP/2 connection (SETTINGS_MAX_CONCURRENT_STREAMS); more are refused. */
  readonly maxStreamsPerConnection: number
  /** Streams an HTTP/2 client may reset in a burst before its connection is ended (StreamResets.ts). */
  readonly maxStreamResets: number
}

/**
 * Binds `host:port` for as long as the scope lives, serving nothing: a process holds each of its
 * ports this way before it opens its database, so a taken port (or a host it cannot bind) is told
 * at once rather than after a start that may take seconds. Port 0 asks for no particular port.
 */
export const portFree = (host: string, port: number) =>
  port === 0 ? Effect.void : Effect.asVoid(Effect.acquireRelease(
    Effect.async<net.Server, ListenError>((resume) => {
      const probe = net.createServer()
      probe.once("error", (error) => resume(Effect.fail(new ListenError({ message: error.message }))))
      probe.listen({ port, host, exclusive: true }, () => resume(Effect.succeed(probe)))
    }),
    (probe) => Effect.async<void>((resume) => void probe.close(() => resume(Effect.void)))
  ))

/** What an HTTP/2 client with prior knowledge sends first (RFC 9113 §3.4). */
const h2Preface = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")

/**
 * Hands a new connection to the HTTP/1.1 or the cleartext HTTP/2 server, decided by its first
 * bytes: gRPC and HTTP/2 Connect clients open with the HTTP/2 preface, everything else is HTTP/1.1.
 */
const dispatchByPreface = (
  h1: http.Server,
  h2: http2.Http2Server,
  firstBytesMillis: number,
  h2FirstRead: (bytes: Buffer) => void
) => (socket: net.Socket) => {
  let received = Buffer.alloc(0)
  // A connection that never says anything would otherwise hold its slot forever. A deadline, not
  // an inactivity timeout: one that dribbles the HTTP/2 preface a byte at a time must not restart it.
  const deadline = setTimeout(() => socket.destroy(), firstBytesMillis)
  socket.once("close", () => clearTimeout(deadline))
  const onData = (chunk: Buffer) => {
    received = Buffer.concat([received, chunk])
    const compared = Math.min(received.length, h2Preface.length)
    const isH2 = received.subarray(0, compared).equals(h2Preface.subarray(0, compared))
    if (isH2 && compared < h2Preface.length) return // the preface is still arriving
    socket.off("data", onData)
    clearTimeout(deadline)
    socket.pause()
    socket.unshift(received)
    if (isH2) h2FirstRead(received)
    // Both servers read what was unshifted before they read from the socket's handle; resuming the
    // socket here would let the JavaScript stream consume bytes that the HTTP/2 session never sees.
    ;(isH2 ? h2 : h1).emit("connection", socket)
    if (!isH2) socket.resume()
  }
  socket.on("data", onData)
  socket.on("error", () => socket.destroy())
}

/**
 * node:http closes an idle keep-alive connection 1 s after the `keepAliveTimeout` it advertises
 * (so that clients, told the shorter time, close first); this makes the close come at `idleMillis`.
 * Below that second there is nothing to advertise, and the socket's idle timeout closes it.
 */
const keepAliveTimeout = (idleMillis: number) => (idleMillis > 1_000 ? idleMillis - 1_000 : 0)

/** How often node:http looks for connections past their headers or request timeout. */
const checkingInterval = (options: ListenOptions) =>
  Math.max(10, Math.min(1_000, Math.floor(Math.min(options.headersTimeoutMillis, options.requestTimeoutMillis) / 5)))

/**
 * One listener per service port, serving HTTP/1.1 and HTTP/2 with prior knowledge on the same
 * port. Closing it stops accepting, lets in-flight requests finish (HTTP/2 clients get GOAWAY),
 * and after the grace period closes whatever is left.
 */
export const listen = (handler: RequestHandler, options: ListenOptions) =>
  Effect.acquireRelease(
    Effect.async<{ readonly port: number; readonly close: () => Promise<void> }, ListenError>((resume) => {
      // Each answer noted against its connection: a connection with one still to make is not idle.
      // And each call against its connection's place, which says how much the connection is worth.
      const places = connectionPlaces({ max: options.maxConnections, maxPerAddress: options.maxConnectionsPerAddress })
      const noted = places.track(noteAnswers(handler))
      const h1 = http.createServer({
        // node:http refuses to start with headersTimeout > requestTimeout (REQUEST_TIMEOUT_MS set
        // below the HEADERS_TIMEOUT_MS default, say); the whole request's deadline bounds its headers.
        headersTimeout: Math.min(options.headersTimeoutMillis, options.requestTimeoutMillis),
        requestTimeout: options.requestTimeoutMillis,
        keepAliveTimeout: keepAliveTimeout(options.idleTimeoutMillis),
        // node:http enforces the two timeouts above only when it checks its connections, every 30 s
        // by default: a slow client would get up to 30 s more than configured.
        connectionsCheckingInterval: checkingInterval(options)
      }, noted)
      // node:http tracks connections (for closeIdleConnections and the headers/request timeouts)
      // from its 'listening' event, which a server fed through 'connection' never fires itself.
      h1.emit("listening")
      // Node's own default allows 2^32-1 streams per connection, and each never-finished one holds
      // memory until its deadline (docs/reliability.md §2a, HTTP/2 streams). Streams over the
      // limit get REFUSED_STREAM.
      const h2 = http2.createServer(
        { settings: { maxConcurrentStreams: options.maxStreamsPerConnection } },
        startAfterRead(withStreamDeadline(noted, options.requestTimeoutMillis))
      )
      const h2FirstRead = limitStreamResets(h2, options.maxStreamResets)
      destroyEndedSessions(h2)
      closeWhenIdle(h1, h2, options.idleTimeoutMillis)
      h2.on("session", places.onSession)
      closeQuietSessions(h2, options)
      const sockets = new Set<net.Socket>()
      const sessions = new Set<http2.ServerHttp2Session>()
      h2.on("session", (session) => {
        sessions.add(session)
        session.on("close", () => sessions.delete(session))
      })
      const dispatch = dispatchByPreface(h1, h2, options.headersTimeoutMillis, h2FirstRead)
      const tcp = net.createServer((socket) => {
        if (!places.admit(socket)) return
        sockets.add(socket)
        socket.on("close", () => sockets.delete(socket))
        dispatch(socket)
      })

      const close = async () => {
        tcp.close()
        h1.close()
        for (const session of sessions) session.close()
        const deadline = Date.now() + options.shutdownGraceMillis
        while (sockets.size > 0 && Date.now() < deadline) {
          h1.closeIdleConnections()
          await new Promise((resolve) => setTimeout(resolve, 25))
        }
        for (const socket of sockets) socket.destroy()
      }

      tcp.once("error", (error) => resume(Effect.fail(new ListenError({ message: error.message }))))
      tcp.listen(options.port, options.host, () => {
        // A TCP server's address is an AddressInfo (a string only for a pipe or socket file).
        const address = tcp.address()
        resume(Effect.succeed({ port: typeof address === "object" && address !== null ? address.port : options.port, close }))
      })
    }),
    ({ close }) => Effect.promise(close)
  )
