import * as http2 from "node:http2"
import type { RequestHandler } from "./PortListener.js"

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
 */

interface Allowance {
  resets: number
  at: number
  ended: boolean
}

/** How long a session told ENHANCE_YOUR_CALM has to close by itself before it is destroyed. */
const calmGraceMillis = 1_000

/**
 * Wraps the HTTP/2 request handler: a request starts after the read that brought it, unless its
 * stream is already gone; a session whose client resets more than `maxResets` streams in a burst
 * (refilled at `maxResets / 10` a second) is sent GOAWAY ENHANCE_YOUR_CALM and closed.
 */
export const limitStreamResets = (handler: RequestHandler, maxResets: number): RequestHandler => {
  const allowances = new WeakMap<http2.Http2Session, Allowance>()
  const refillPerMilli = maxResets / 10_000
  const reset = (session: http2.Http2Session) => {
    const now = Date.now()
    let allowance = allowances.get(session)
    if (allowance === undefined) allowances.set(session, allowance = { resets: 0, at: now, ended: false })
    if (allowance.ended) return
    allowance.resets = Math.max(0, allowance.resets - (now - allowance.at) * refillPerMilli) + 1
    allowance.at = now
    if (allowance.resets <= maxResets) return
    allowance.ended = true
    // GOAWAY first, then close: `destroy` with a code of its own sent NO_ERROR in Node 20. The
    // streams still open are the client's to finish; the grace bounds a client that does not.
    session.goaway(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM)
    session.close()
    setTimeout(() => session.destroy(), calmGraceMillis).unref()
  }
  return (request, response) => {
    if (!(request instanceof http2.Http2ServerRequest)) return handler(request, response)
    const stream = request.stream
    // Read now: a destroyed stream no longer names its session.
    const session = stream.session
    if (session === undefined) return
    // Counted as the RST_STREAM is read (Node emits 'aborted' from inside that frame), so the
    // GOAWAY can come before nghttp2's own limit ends the connection as an INTERNAL_ERROR.
    stream.once("aborted", () => reset(session))
    setImmediate(() => {
      if (stream.destroyed || stream.closed) return
      handler(request, response)
    })
  }
}
