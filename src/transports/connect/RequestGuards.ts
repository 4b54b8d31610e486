import type { RequestHandler, Response } from "../http/PortListener.js"

/**
 * connect-node builds each request's URL from its authority, and throws, synchronously and outside
 * any promise, when a request has none: an HTTP/1.0 request without a Host header (node:http lets
 * those through). Thrown from the server's "request" listener, that is an uncaught exception, and it
 * ends the process: one 60-byte request took a port down. Such a request is refused here instead,
 * and anything else the adapter might throw synchronously is answered as `internal` and logged,
 * rather than left to crash the process.
 */

const reply = (response: Response, status: number, code: string, message: string) => {
  if (response.headersSent) return void response.end()
  const body = JSON.stringify({ code, message })
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
  response.end(body)
}

export const withRequestGuards = (handler: RequestHandler): RequestHandler => (request, response) => {
  const authority = "authority" in request ? request.authority : request.headers.host
  if (authority === undefined || authority === "") {
    return reply(response, 400, "invalid_argument", "the request names no host (a Host header or :authority is required)")
  }
  try {
    handler(request, response)
  } catch (error) {
    console.error(`Connect handler for ${request.method} ${request.url} threw`, error)
    reply(response, 500, "internal", "internal error")
  }
}
