import type { Request, Response } from "./RequestHandler.js"

const json = (response: Response, status: number, body: unknown) => {
  const text = JSON.stringify(body)
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  response.end(text)
}

/**
 * `GET /healthz`: the process is up. `GET /readyz`: the database answers, so requests can succeed
 * (as `isReady` says: from a shared state, not a query per probe). Returns false for any other
 * request.
 */
export const probes = (isReady: () => Promise<boolean>) => (request: Request, response: Response): boolean => {
  const path = (request.url ?? "").split("?")[0]
  if (request.method !== "GET" && request.method !== "HEAD") return false
  if (path === "/healthz") {
    json(response, 200, { status: "ok" })
    return true
  }
  if (path === "/readyz") {
    isReady().then(
      (ready) => json(response, ready ? 200 : 503, { status: ready ? "ready" : "database unavailable" }),
      () => json(response, 503, { status: "database unavailable" })
    )
    return true
  }
  return false
}
