import type { Request } from "../../http/RequestHandler.js"

/**
 * Correction 1, hostlessRequestThrows: `universalRequestFromNodeRequest` builds the URL from the
 * authority and throws, synchronously, when there is none (HTTP/1.0 without Host). Thrown from the
 * "request" listener that is an uncaught exception, which ends the process: one 60-byte request
 * took a port down. The adapter refuses such a request before the conversion; anything else thrown
 * synchronously is answered `internal` and logged.
 */
export const hostless = (request: Request): boolean => {
  const authority = "authority" in request ? request.authority : request.headers.host
  return authority === undefined || authority === ""
}

export const hostlessMessage = "the request names no host (a Host header or :authority is required)"
