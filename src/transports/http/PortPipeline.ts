import { toOriginForm } from "../limits/AllowedHosts.js"
import type { Request, RequestHandler, Response } from "./RequestHandler.js"
import type { CallTelemetry } from "./CallTelemetry.js"
import { beginCall, pathOf } from "./Calls.js"
import { type Refusal, refuse } from "./Refusal.js"
import { assignRequestId } from "./RequestId.js"

/** A step of the pipeline: true when it has answered the request itself, false to let it on. */
export type Step = (request: Request, response: Response) => boolean

export interface PortPipeline {
  /** CORS headers for allowed origins; answers preflights. */
  readonly cors: Step
  /** `GET /healthz` and `GET /readyz`. */
  readonly probes: Step
  /** The pages for people (GraphiQL, `/docs`) and their assets: open, they hold no data. */
  readonly pages: Step
  /** Whether a path is gRPC health, which `health` serves. */
  readonly isHealth: (path: string) => boolean
  readonly health: RequestHandler
  /** How a request naming a host this port does not answer to is refused (AllowedHosts.ts), if it is. */
  readonly misdirected: (request: Request) => Refusal | undefined
  /** Refuses a call without the bearer token when one is configured. */
  readonly authentication: Step
  /** `GET /metrics` (behind authentication; not itself a call). */
  readonly metrics: Step
  /** Told of every call as it begins and once its response is over (access log, metrics). */
  readonly telemetry: CallTelemetry
  /** Refuses a call over the port's in-flight limit. */
  readonly admission: Step
  /** The styles: Connect and gRPC, GraphQL, REST and `/rpc`, chosen by the request's path alone. */
  readonly styles: (request: Request, response: Response, path: string) => void
}

/**
 * Every call on a port, in every style, passes here first, in this order: an absolute-form target
 * becomes the origin form (AllowedHosts.ts); it gets its request id;
 * CORS; the probes; gRPC health, which is open and needs no place under the in-flight limit (a
 * saturated port still says it is alive); the host rule (what is not the probes or health must
 * name a host this port answers to); the pages for people; `/metrics`, behind authentication;
 * then the call is recorded (Calls.ts: told to `finished` when its response is over, refusals
 * included, a misdirected request too); authentication, from the headers alone, before any body
 * is read; admission; its style.
 *
 * The probes and gRPC health are open to any Host as they are to callers without the token: load
 * balancers and orchestrators check a replica by its address or by a name of their own, and the
 * answers hold no data. A CORS preflight is answered before the host rule: its answer does not
 * depend on the Host, and the call it announces meets the rule.
 *
 * Written on Node's request and response rather than as the platform's HttpMiddleware: connect-node
 * and graphql-http take Node's request and response themselves, so a middleware of the platform's
 * HTTP app would only see the REST and `/rpc` calls.
 */
export const portPipeline = (steps: PortPipeline): RequestHandler => (request, response) => {
  toOriginForm(request)
  const requestId = assignRequestId(request, response)
  if (steps.cors(request, response) || steps.probes(request, response)) return
  const path = pathOf(request)
  if (steps.isHealth(path)) return steps.health(request, response)
  const misdirected = steps.misdirected(request)
  if (misdirected === undefined) {
    if (steps.pages(request, response)) return
    if (path === "/metrics") return void (steps.authentication(request, response) || steps.metrics(request, response))
  }
  const call = beginCall(request, requestId, path)
  steps.telemetry.started(call, request, response)
  // A response closes once (Node guards its 'close'): `on`, without the wrapper and removal `once` adds to every call.
  response.on("close", () => steps.telemetry.finished(call, response))
  if (misdirected !== undefined) return refuse(request, response, misdirected)
  if (steps.authentication(request, response) || steps.admission(request, response)) return
  steps.styles(request, response, path)
}

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
