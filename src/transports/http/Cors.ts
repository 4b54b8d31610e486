import { cors } from "@connectrpc/connect"
import type { Request, Response } from "./RequestHandler.js"

/**
 * CORS for browsers, off unless origins are listed (`*` allows any), or for the onboarding console
 * this process serves (`consoleOrigins`: its origin at each host name the process answers to, from
 * the settings): its pages call the other services' ports, so the all-in-one process works in a
 * browser with no setting. Nothing here is taken from the request but its Origin, compared with
 * those lists: an origin built from its Host would be whatever the caller says (a page on
 * `attacker.test` that got its name resolved to us). Allowed origins get the
 * headers that Connect and gRPC-Web need (connect-es publishes the lists) plus `Authorization`,
 * and may read the call's `X-Request-Id`.
 * Returns true when it answered the request itself (a preflight).
 */
export const corsPolicy = (origins: ReadonlyArray<string>, consoleOrigins: ReadonlyArray<string> = []) => {
  const allowMethods = [...new Set([...cors.allowedMethods, "PUT"])].join(", ")
  const allowHeaders = [...new Set([...cors.allowedHeaders, "Authorization"])].join(", ")
  const exposeHeaders = [...cors.exposedHeaders, "X-Request-Id", "Traceresponse"].join(", ")
  return (request: Request, response: Response): boolean => {
    const origin = request.headers["origin"]
    if (typeof origin !== "string") return false
    const ownConsole = consoleOrigins.includes(origin)
    if (origins.length === 0 && !ownConsole) return false
    const preflight = request.method === "OPTIONS" && request.headers["access-control-request-method"] !== undefined
    if (!ownConsole && !origins.includes("*") && !origins.includes(origin)) {
      if (!preflight) return false
      response.writeHead(403, { "content-type": "text/plain" })
      response.end("origin not allowed")
      return true
    }
    response.setHeader("access-control-allow-origin", origin)
    response.setHeader("vary", "Origin")
    response.setHeader("access-control-expose-headers", exposeHeaders)
    if (!preflight) return false
    response.writeHead(204, {
      "access-control-allow-methods": allowMethods,
      "access-control-allow-headers": allowHeaders,
      "access-control-max-age": "7200"
    })
    response.end()
    return true
  }
}
