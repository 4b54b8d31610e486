import { Code, ConnectError, type ConnectRouter, type ConnectRouterOptions, createConnectRouter, createContextKey, createContextValues } from "@connectrpc/connect"
import { compressionBrotli, compressionGzip, universalRequestFromNodeRequest, universalResponseToNodeResponse } from "@connectrpc/connect-node"
import type { UniversalHandler } from "@connectrpc/connect/protocol"
import { answered, type Call, callOf } from "../http/Calls.js"
import { type JsonBounds, unboundedJson } from "../limits/JsonBounds.js"
import type { Request, RequestHandler, Response } from "../http/RequestHandler.js"
import { refuse } from "../http/Refusal.js"
import { bodilessRefusal, connectJsonRefusal } from "../corrections/connect/bodilessRefusals.js"
import { corrected } from "../corrections/connect/CorrectedAnswer.js"
import { strictRouter } from "../corrections/connect/jsonReadOptions.js"
import { dropTimerOverflowDeadlines } from "../corrections/connect/timerOverflowDeadlines.js"
import { fieldBounded } from "../corrections/connect/unboundedBinaryFields.js"
import { protocolOf } from "../corrections/connect/Wire.js"
import { base64Decode } from "@bufbuild/protobuf/wire"
import { isUtf8QueryValue, notUtf8, rawMessageParameter } from "../corrections/connect/lenientUtf8.js"

export { jsonOptionsFor } from "../corrections/connect/jsonReadOptions.js"

/**
 * connect-node's adapter (`connectNodeAdapter`, 30 lines upstream), assembled here from the same
 * public parts — `createConnectRouter`, `universalRequestFromNodeRequest`,
 * `universalResponseToNodeResponse` — so that every correction we make to connect-node 2.1.1 is
 * applied at a seam: on the request before the router sees it, in the JSON read options the router
 * takes, or on the router's response object before it is written. Nothing replaces methods on a
 * live Node response.
 *
 * Each correction is one module of `corrections/`, named after the upstream behaviour it corrects:
 * 1 hostlessRequestThrows, 2 timerOverflowDeadlines, 3 lenientUtf8, 4 rolledOverTimestamps,
 * 5 undecodableAsInternal, 6 overEscapedGrpcMessage, 7 bodilessRefusals, 8 unboundedBinaryFields,
 * 9 readMaxBytesInMessage, 10 ignoredUnknownFields, 11 wrongJsonTypes.
 * test/transports/connect-node-upstream.test.ts shows each behaviour on connect-node's own
 * adapter: an upgrade that fixes or changes one fails a test there, and the correction must go or
 * change with it instead of being applied twice. connect-node 2.2.0 fixes none of them.
 */

/** The pipeline's record of the call (Calls.ts), handed to handlers in their context. */
export const callKey = createContextKey<Call | undefined>(undefined)

export interface ConnectAdapterOptions extends ConnectRouterOptions {
  /** JSON_MAX_DEPTH, JSON_MAX_VALUES: held by every JSON message, before it is parsed; unbounded if unset. */
  readonly jsonBounds?: JsonBounds
  /** PROTOBUF_MAX_FIELDS: held by every binary request message, before it is decoded (ProtobufFieldBound); unbounded if unset. */
  readonly protobufMaxFields?: number
  readonly routes: (router: ConnectRouter) => void
  /** Answers a path no service routes. */
  readonly fallback: RequestHandler
  /** Logs a failure the adapter could not answer as a call's own (a write error, a throw). */
  readonly logFailure: (request: Request, message: string, error: unknown) => void
}

/** connect-node's `connectNodeAdapter`, with the corrections of `corrections/`. */
export const connectNodeAdapter = (options: ConnectAdapterOptions): RequestHandler => {
  const acceptCompression = options.acceptCompression ?? [compressionGzip, compressionBrotli]
  const router = createConnectRouter({ ...options, acceptCompression })
  options.routes(strictRouter(router, options.jsonBounds ?? unboundedJson))
  const bounded = fieldBounded({
    maxFields: options.protobufMaxFields ?? Number.POSITIVE_INFINITY,
    acceptCompression,
    // connect-es's default when none is given.
    readMaxBytes: options.readMaxBytes ?? 0xffffffff
  })
  const handlers = new Map(router.handlers.map((handler) => [handler.requestPath, handler]))

  const serve = (handler: UniversalHandler, request: Request, response: Response) => {
    if (request.method === "GET") {
      const refusal = getQueryRefusal(handler, request.url ?? "/")
      if (refusal !== undefined) return refuse(request, response, { kind: "InvalidArgument", message: refusal })
    }
    const universal = universalRequestFromNodeRequest(
      request,
      response,
      undefined,
      createContextValues().set(callKey, callOf(request))
    )
    dropTimerOverflowDeadlines(request.headers, universal.header)
    const protocol = protocolOf((request.headers["content-type"] ?? "").toLowerCase())
    handler(bounded(handler, protocol, universal, request.headers))
      .then((answer) => {
        const refusal = answer.body === undefined ? bodilessRefusal(handler, request, answer.status) : undefined
        if (refusal !== undefined) return connectJsonRefusal(request, response, refusal.kind, refusal.message, refusal.headers)
        const fixed = corrected(handler.method, protocol, answer, (code) => answered(request, code))
        return fixed instanceof Promise
          ? fixed.then((each) => universalResponseToNodeResponse(each, response))
          : universalResponseToNodeResponse(fixed, response)
      })
      .catch((reason: unknown) => {
        // As upstream: a call the client abandoned is not worth a line.
        if (ConnectError.from(reason).code === Code.Aborted) return
        options.logFailure(request, `${handler.service.typeName}/${handler.method.name} failed`, reason)
      })
  }

  return (request, response) => {
    const handler = handlers.get((request.url ?? "").split("?", 2)[0]!)
    if (handler === undefined) return options.fallback(request, response)
    // A Connect JSON answer whatever the protocol: without a host there is no telling what the caller speaks.
    if (hostless(request)) return connectJsonRefusal(request, response, "InvalidArgument", hostlessMessage)
    try {
      serve(handler, request, response)
    } catch (error) {
      options.logFailure(request, `Connect handler for ${request.method} ${request.url} threw`, error)
      if (response.headersSent) return void response.end()
      refuse(request, response, { kind: "Internal", message: "internal error" })
    }
  }
}

/**
 * What a caller sent on a Connect GET that connect-es would misread: a `message` that is not
 * UTF-8 (correction 3, lenientUtf8) or not base64 with `base64=1` (correction 5,
 * undecodableAsInternal). Refused before the router, as invalid_argument.
 */
export const getQueryRefusal = (handler: UniversalHandler, url: string): string | undefined => {
  const query = url.indexOf("?") === -1 ? "" : url.slice(url.indexOf("?") + 1)
  const params = new URLSearchParams(query)
  const encoding = params.get("encoding")
  if (!handler.allowedMethods.includes("GET") || (encoding !== "json" && encoding !== "proto")) return undefined
  if (params.get("base64") === "1") {
    try {
      base64Decode(params.get("message") ?? "")
      return undefined
    } catch {
      return "message: the query parameter is not base64 (base64=1)"
    }
  }
  const raw = encoding === "json" ? rawMessageParameter(query) : undefined
  return raw !== undefined && !isUtf8QueryValue(raw) ? `message: ${notUtf8}` : undefined
}

/**
 * Correction 1, hostlessRequestThrows: `universalRequestFromNodeRequest` builds the URL from the
 * authority and throws, synchronously, when there is none (HTTP/1.0 without Host). Thrown from the
 * "request" listener that is an uncaught exception, which ends the process: one 60-byte request
 * would take a port down. The adapter refuses such a request before the conversion; anything else thrown
 * synchronously is answered `internal` and logged.
 */
export const hostless = (request: Request): boolean => {
  const authority = "authority" in request ? request.authority : request.headers.host
  return authority === undefined || authority === ""
}

export const hostlessMessage = "the request names no host (a Host header or :authority is required)"
