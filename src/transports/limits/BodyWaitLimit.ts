import * as http2 from "node:http2"
import type { Request, Response } from "../http/RequestHandler.js"
import { refuse } from "../http/Refusal.js"

/*
 * A call holds its place under MAX_REQUESTS_IN_FLIGHT from its headers on, so a client that sends
 * headers and then its body a byte at a time holds a place for the whole REQUEST_TIMEOUT_MS while
 * costing itself nothing: 11 HTTP/2 connections of 100 such streams held all 1024 places of a port,
 * and every other call on it was answered 503 (MAX_STREAMS_PER_CONNECTION bounds one connection,
 * not the port). So the calls still waiting for their body may hold at most `max` places; one more
 * takes the place of the one that has waited longest, which is refused. Refusing the oldest rather
 * than the newest is what keeps the port's writes open: an honest body arrives within a round trip
 * of its headers, so the waiters an attacker keeps are always the oldest (the same choice as
 * Envoy's overload manager, which resets the streams that cost most, not the next one to arrive).
 *
 * The refused call is answered `unavailable` in its style's form (HTTP 503 with Retry-After, gRPC
 * 14), a code clients retry as nothing of the call ran, and its stream reset (CANCEL, as
 * Http2Limits.ts does after a 408). An HTTP/1.1 call has its connection closed instead: its body is
 * still arriving on it, and closing is what a client that disconnects does to the call too.
 *
 * A bearer token exempts nobody: the step comes after authentication, and counts callers with the
 * token as it counts the others (BearerAuth.ts caps the token-less ones further).
 */

/** A call of the pipeline's, waiting for its body. */
interface Waiter {
  readonly request: Request
  readonly response: Response
  readonly done: () => void
}

/** Whether the request's body is still to come: HTTP/2 without END_STREAM on its HEADERS; HTTP/1.1 with a body declared. */
export const awaitsBody = (request: Request): boolean => {
  if (request instanceof http2.Http2ServerRequest) return !request.stream.endAfterHeaders && !request.complete
  return !request.complete && (Number(request.headers["content-length"] ?? 0) > 0 || request.headers["transfer-encoding"] !== undefined)
}

const refusalOf = (max: number) => ({
  kind: "Unavailable" as const,
  message: `this port already has ${max} requests waiting for their body (MAX_REQUESTS_AWAITING_BODY); ` +
    "this one had waited longest and was refused",
  headers: { "retry-after": "1" }
})

const evict = (waiter: Waiter, max: number) => {
  waiter.done()
  const { request, response } = waiter
  if (request instanceof http2.Http2ServerRequest) {
    if (!response.headersSent) refuse(request, response, refusalOf(max))
    if (!request.stream.closed) request.stream.close(http2.constants.NGHTTP2_CANCEL)
  } else {
    request.socket.destroy()
  }
}

/**
 * A pipeline step (never refuses the request it is given): notes a request whose body is still to
 * come until it has arrived or its answer closes; with `max` already noted, refuses the oldest.
 */
export const bodyWaitLimit = (max: number) => {
  // A Set keeps insertion order: its first entry is the call that has waited longest.
  const waiting = new Set<Waiter>()
  return (request: Request, response: Response): boolean => {
    if (!awaitsBody(request)) return false
    const waiter: Waiter = {
      request,
      response,
      done: () => {
        waiting.delete(waiter)
        request.off("end", waiter.done)
        response.off("close", waiter.done)
      }
    }
    if (waiting.size >= max) {
      const oldest = waiting.values().next().value
      if (oldest !== undefined) evict(oldest, max)
    }
    waiting.add(waiter)
    // `done` is the same however often it runs, and takes both away: `on`, without `once`'s wrappers.
    request.on("end", waiter.done)
    response.on("close", waiter.done)
    return false
  }
}

/**
 * Admits at most `max` requests at once on one port, over HTTP/1.1 and HTTP/2 together; a
 * request over the limit is answered `unavailable` at once (gRPC 14, HTTP 503 with Retry-After),
 * a code clients retry, rather than queued: a queue without bound is memory an attacker fills,
 * and a bounded one only delays the same answer. A request counts until its response closes
 * (sent, or the connection gone). A pipeline step: true when it refused the request.
 */
export const inFlightLimit = (max: number) => {
  let inFlight = 0
  const release = () => {
    inFlight--
  }
  return (request: Request, response: Response): boolean => {
    if (inFlight >= max) {
      refuse(request, response, {
        kind: "Unavailable",
        message: `this port already has ${max} requests in flight (its limit) and refused this one`,
        headers: { "retry-after": "1" }
      })
      return true
    }
    inFlight++
    // A response closes once (Node guards its 'close'): `on`, without the wrapper and removal `once` adds to every call.
    response.on("close", release)
    return false
  }
}
