import { randomUUID } from "node:crypto"
import type { Request, Response } from "./RequestHandler.js"

/** The header a call's request id travels in, both ways. */
export const requestIdHeader = "x-request-id"

/**
 * What a caller's own id may be: 1 to 128 visible ASCII characters. Anything else (too long, a
 * space, a control or non-ASCII character) could not be echoed safely as a header or written into
 * a log line as it is, so such a call gets an id of its own instead.
 */
const acceptable = /^[\x21-\x7e]{1,128}$/

/**
 * Gives the call its request id: the caller's `x-request-id` when acceptable, otherwise a new
 * UUID. It is echoed on the response (set before any style writes its headers, which node merges
 * into theirs, so it is there in every style, refusals and gRPC trailers-only answers included),
 * and written back to the request, so that every style reads the same value from its headers.
 */
export const assignRequestId = (request: Request, response: Response): string => {
  const given = request.headers[requestIdHeader]
  const id = typeof given === "string" && acceptable.test(given) ? given : randomUUID()
  request.headers[requestIdHeader] = id
  response.setHeader(requestIdHeader, id)
  return id
}

/** The request id the pipeline assigned, from headers in any of the forms the styles see them. */
export const requestIdIn = (headers: { readonly [name: string]: unknown }): string => {
  const id = headers[requestIdHeader]
  return typeof id === "string" ? id : ""
}
