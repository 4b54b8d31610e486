import type { Request, Response } from "../http/RequestHandler.js"
import { refuse } from "../http/Refusal.js"

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
    response.once("close", release)
    return false
  }
}
