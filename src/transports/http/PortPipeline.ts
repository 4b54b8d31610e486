import type { Request, RequestHandler, Response } from "./PortListener.js"
import type { CallTelemetry } from "./CallTelemetry.js"
import { beginCall, pathOf } from "./Calls.js"
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
  /** Refuses a call without the bearer token when one is configured. */
  readonly authentication: Step
  /** `GET /metrics` (behind authentication; not itself a call). */
  readonly metrics: Step
  /** Told of every call as it begins and once its response is over (access log, metrics). */
  readonly telemetry: CallTelemetry
  /** Refuses a call over the port's in-flight limit. */
  readonly admission: Step
  /** The styles: Connect and gRPC, GraphQL, REST and `/rpc`. */
  readonly styles: RequestHandler
}

/**
 * Every call on a port, in every style, passes here first, in this order: it gets its request id;
 * CORS; the probes; the pages for people; gRPC health, which is open and needs no place under the in-flight limit (a
 * saturated port still says it is alive); `/metrics`, behind authentication; then the call is
 * recorded (Calls.ts: told to `finished` when its response is over, refusals included);
 * authentication, from the headers alone, before any body is read; admission; its style.
 *
 * Written on Node's request and response rather than as the platform's HttpMiddleware: connect-node
 * and graphql-http take Node's request and response themselves, so a middleware of the platform's
 * HTTP app would only see the REST and `/rpc` calls.
 */
export const portPipeline = (steps: PortPipeline): RequestHandler => (request, response) => {
  const requestId = assignRequestId(request, response)
  if (steps.cors(request, response) || steps.probes(request, response) || steps.pages(request, response)) return
  const path = pathOf(request)
  if (steps.isHealth(path)) return steps.health(request, response)
  if (path === "/metrics") return void (steps.authentication(request, response) || steps.metrics(request, response))
  const call = beginCall(request, requestId, path)
  steps.telemetry.started(call, request, response)
  response.once("close", () => steps.telemetry.finished(call, response))
  if (steps.authentication(request, response) || steps.admission(request, response)) return
  steps.styles(request, response)
}
