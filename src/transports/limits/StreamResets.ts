import * as http2 from "node:http2"
import { endSession } from "./EndingSessions.js"
import type { RequestHandler } from "../http/RequestHandler.js"

/*
 * Rapid reset (CVE-2023-44487): a client opens a stream and resets it at once, thousands of times a
 * second, on a connection whose MAX_CONCURRENT_STREAMS never binds (a reset stream no longer counts).
 * Each stream still costs the server whatever its handler starts. Two answers, as the servers that
 * shipped fixes for it give them:
 *
 * - a stream's handler starts once the bytes read with its HEADERS have all been processed, and not
 *   at all if its stream was reset meanwhile (Go queues the handler and drops it on reset). node:http2
 *   runs the request handler from inside the frame that opens the stream, before the RST_STREAM that
 *   follows in the same read: without the wait, every reset stream ran the whole pipeline (request
 *   id, call record, telemetry, authentication, a style's handler) for an answer nobody would read.
 * - resets are counted per connection in an allowance of `maxResets` that refills at a tenth of it
 *   per second (nghttp2's own limit is a burst of 1000 refilled at 33 a second); one more reset
 *   ends the connection with GOAWAY ENHANCE_YOUR_CALM (nginx, Go and Envoy close such connections).
 *   An honest client resets a stream when it cancels a call: 400 at once is every open call of a
 *   connection (MAX_STREAMS_PER_CONNECTION, 100) cancelled four times over.
 *
 * A reset counts when the client ends a stream whose answer the server has not finished (Node's
 * 'aborted'): the server's own resets come after its answer (Http2Limits.ts, BodyWaitLimit.ts).
 * Counted on the session, not the request: the bytes a connection's first read brought (read by
 * PortListener's dispatch, handed to the session whole) are processed in one call, so their streams
 * are opened, reset and destroyed before their 'stream' event, and no longer name their session.
 * Left to the request, those resets went uncounted, and nghttp2's own limit ended most attacking
 * connections, as INTERNAL_ERROR, which Node does not tell (EndingSessions.ts).
 */

/**
 * Wraps the HTTP/2 request handler: a request starts after the read that brought it, unless its
 * stream is already gone.
 */
export const startAfterRead = (handler: RequestHandler): RequestHandler => (request, response) => {
  if (!(request instanceof http2.Http2ServerRequest)) return handler(request, response)
  const stream = request.stream
  setImmediate(() => {
    if (stream.destroyed || stream.closed) return
    handler(request, response)
  })
}

/** What an HTTP/2 client with prior knowledge sends first (RFC 9113 §3.4). */
const prefaceBytes = 24
const rstStream = 3

/**
 * The stream of the frame that holds reset number `maxResets + 1` in a connection's first `bytes`,
 * if there is one. nghttp2 takes these bytes in one call, and its own limit would fire inside it
 * (INTERNAL_ERROR), before any count of ours: a session that is over before it starts is told
 * ENHANCE_YOUR_CALM before it reads them.
 */
const overAllowance = (bytes: Buffer, maxResets: number) => {
  let resets = 0
  let at = prefaceBytes
  while (at + 9 <= bytes.length) {
    const end = at + 9 + bytes.readUIntBE(at, 3)
    if (end > bytes.length) return undefined
    if (bytes[at + 3] === rstStream && ++resets > maxResets) return bytes.readUInt32BE(at + 5) & 0x7fffffff
    at = end
  }
  return undefined
}

/**
 * Counts the resets of every session of `server`; a session whose client resets more than
 * `maxResets` streams in a burst (refilled at `maxResets / 10` a second) is sent GOAWAY
 * ENHANCE_YOUR_CALM and ended. Returns what the dispatch is to be told of the bytes a
 * connection's first read brought, before it hands them to the HTTP/2 server.
 */
export const limitStreamResets = (server: http2.Http2Server, maxResets: number) => {
  const refillPerMilli = maxResets / 10_000
  // The dispatch hands the socket to Node's listener right after this, and that listener makes the
  // session and emits 'session' in the same 'connection' event, before the session reads.
  let overAt: number | undefined
  const firstRead = (bytes: Buffer) => void (overAt = overAllowance(bytes, maxResets))
  server.on("session", (session: http2.ServerHttp2Session) => {
    let resets = 0
    let at = Date.now()
    let ended = overAt !== undefined
    if (overAt !== undefined) {
      // GOAWAY before the session reads (nghttp2 has no limit of its own once one is submitted), the
      // close once it has (a session closed with no stream is destroyed, under the read to come).
      session.goaway(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM, overAt)
      setImmediate(() => session.destroyed || endSession(session, http2.constants.NGHTTP2_ENHANCE_YOUR_CALM))
    }
    overAt = undefined
    const reset = () => {
      if (ended) return
      const now = Date.now()
      resets = Math.max(0, resets - (now - at) * refillPerMilli) + 1
      at = now
      if (resets <= maxResets) return
      ended = true
      endSession(session, http2.constants.NGHTTP2_ENHANCE_YOUR_CALM)
    }
    session.on("stream", (stream: http2.ServerHttp2Stream) => {
      // Reset in the read that opened it: 'aborted' has been and gone.
      if (stream.aborted) reset()
      else stream.once("aborted", reset)
    })
  })
  return firstRead
}
