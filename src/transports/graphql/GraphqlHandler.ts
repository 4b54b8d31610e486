import { Cause, Effect, Record, Runtime } from "effect"
import { type ExecutionResult, GraphQLError, type GraphQLResolveInfo } from "./GraphqlJs.js"
import { createHandler as http1Handler } from "graphql-http/lib/use/http"
import { createHandler as http2Handler } from "graphql-http/lib/use/http2"
import type * as http from "node:http"
import type * as http2 from "node:http2"
import type { Writable } from "node:stream"
import { errorTable } from "../ErrorTable.js"
import type { JsonBounds } from "../http/JsonBounds.js"
import type { RequestHandler } from "../http/PortListener.js"
import { callOf } from "../http/Calls.js"
import { requestIdIn } from "../http/RequestId.js"
import { boundedRequestParams } from "./BoundedRequestParams.js"
import { boundedParse, type DocumentBounds, defaultDocumentBounds } from "./DocumentBounds.js"
import { documentCache } from "./DocumentCache.js"
import type { GraphqlApi, GraphqlArgs } from "./GraphqlApi.js"
import { limitErrors, type QueryLimits } from "./QueryLimits.js"
import { graphqlCall, type GraphqlContext } from "./GraphqlCall.js"

export interface GraphqlHandlerOptions {
  /** Largest POST body accepted, in bytes; larger ones get RESOURCE_EXHAUSTED (413). Unbounded if unset. */
  readonly readMaxBytes?: number
  /** Bounds on a POST body's JSON nesting and values, checked before it is parsed; unbounded if unset. */
  readonly jsonBounds?: JsonBounds
  /** Bounds on an operation's nesting depth and field count; unbounded if unset. */
  readonly limits?: QueryLimits
  /** Bounds on a document's text, checked before it is parsed; defaultDocumentBounds if unset. */
  readonly documentBounds?: DocumentBounds
}

/** Aborts when the client goes away before its answer is written. */
const closedEarly = (response: Writable): AbortSignal => {
  const controller = new AbortController()
  response.once("close", () => {
    if (!response.writableEnded) controller.abort()
  })
  return controller.signal
}

/**
 * A result without `data` is a request error (variables that do not fit their declared types).
 * GraphQL-over-HTTP wants 4xx for it under application/graphql-response+json, which graphql-http
 * 1.23 applies to bare error lists only; handing it the errors alone makes it apply that rule
 * (and keep 200 for application/json).
 */
const requestErrorsAsSuch = (result: ExecutionResult): ExecutionResult | undefined =>
  result.data === undefined && result.errors !== undefined ? result.errors as unknown as ExecutionResult : undefined

/**
 * What JavaScript itself throws (a stack overflow, a JSON SyntaxError, a TypeError from a bug)
 * is about the server, never the request. graphql-http puts any error's message on the wire, so
 * these are caught on the way out.
 */
const engineErrors = [RangeError, SyntaxError, TypeError, ReferenceError, EvalError, URIError]
const engineError = (error: Readonly<Error>): unknown => {
  const cause = error instanceof GraphQLError ? error.originalError : error
  return engineErrors.some((kind) => cause instanceof kind) ? cause : undefined
}

/**
 * The /graphql endpoint of one port: GraphQL-over-HTTP as graphql-http implements it (POST JSON,
 * GET `?query=` for queries only, application/graphql-response+json when accepted), over HTTP/1.1
 * or HTTP/2, with the port's schema and its operations run on `runtime`.
 */
export const graphqlHandler = <R>(
  api: GraphqlApi<R>,
  runtime: Runtime.Runtime<R>,
  options: GraphqlHandlerOptions = {}
): RequestHandler => {
  const call = graphqlCall(runtime)
  const runLog = Runtime.runFork(runtime)
  const rootValue = Record.map(
    api.operations,
    (operation) => (args: GraphqlArgs, context: GraphqlContext, info: GraphQLResolveInfo) =>
      call(Effect.suspend(() => operation(args)), context, info)
  )
  // One cache per handler: a document valid here is valid for this schema and these rules only.
  const limits = options.limits
  const documents = documentCache({
    schema: api.schema,
    maxEntries: 500,
    maxTotalLength: 65_536,
    maxQueryLength: 4_096,
    parseText: boundedParse(options.documentBounds ?? defaultDocumentBounds),
    ...(limits === undefined ? {} : { screen: (document) => limitErrors(document, limits) })
  })
  const handlerOptions = {
    schema: api.schema,
    parse: documents.parse,
    validate: documents.validate,
    rootValue,
    context: (
      request: { readonly raw: { readonly headers: Record<string, unknown> }; readonly context: { readonly res: Writable } }
    ): GraphqlContext => ({
      signal: closedEarly(request.context.res),
      requestId: requestIdIn(request.raw.headers),
      call: callOf(request.raw)
    }),
    onOperation: (_request: unknown, _args: unknown, result: ExecutionResult) => requestErrorsAsSuch(result),
    parseRequestParams: boundedRequestParams(options.readMaxBytes ?? Number.POSITIVE_INFINITY, options.jsonBounds),
    formatError: (error: Readonly<Error>) => {
      const cause = engineError(error)
      if (cause === undefined) return error
      runLog(Effect.logError("GraphQL request failed", Cause.die(cause)))
      return new GraphQLError("internal error", { extensions: { code: errorTable.Internal.graphql } })
    }
  }
  const h1 = http1Handler(handlerOptions)
  const h2 = http2Handler(handlerOptions)
  return (request, response) => {
    // A response always comes from the same server, node:http or node:http2, as its request.
    if ("stream" in request) void h2(request, response as http2.Http2ServerResponse)
    else void h1(request, response as http.ServerResponse)
  }
}
