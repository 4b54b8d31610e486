import { Cause, Effect, Record, Runtime } from "effect"
import { type DocumentNode, execute, type ExecutionArgs, type ExecutionResult, GraphQLError, type GraphQLResolveInfo, type GraphQLSchema, type ValidationRule } from "./GraphqlJs.js"
import * as http2 from "node:http2"
import type { Request as GraphqlHttpRequest, RequestParams, Response as GraphqlHttpResponse } from "graphql-http"
import { errorBody, errorTable } from "../ErrorTable.js"
import { deferredRefusal } from "../http/BearerAuth.js"
import type { JsonBounds } from "../limits/JsonBounds.js"
import type { Request, RequestHandler } from "../http/RequestHandler.js"
import { answered, callOf, codeName } from "../http/Calls.js"
import { requestIdIn } from "../http/RequestId.js"
import { boundedRequestParams } from "../limits/BoundedRequestParams.js"
import { boundedParse, type DocumentBounds, defaultDocumentBounds } from "../limits/DocumentBounds.js"
import { documentCache } from "./DocumentCache.js"
import type { GraphqlApi, GraphqlArgs } from "./GraphqlApi.js"
import { limitErrors, type QueryLimits } from "../limits/QueryLimits.js"
import { graphqlCall, type GraphqlContext, ResolverFibers } from "./GraphqlCall.js"
import { graphqlHttpAdapter, replyWithoutErrors, type ResponseContext } from "./GraphqlHttpAdapter.js"
import { introspectionOnly } from "./IntrospectionOnly.js"
import { introspectionResults } from "./IntrospectionResults.js"
import { introspectionRootErrors } from "../limits/IntrospectionRoots.js"
import { literalViolations, variableViolations } from "./InputViolations.js"

export interface GraphqlHandlerOptions {
  /** Largest POST body accepted, in bytes; larger ones get RESOURCE_EXHAUSTED (413). Unbounded if unset. */
  readonly readMaxBytes?: number
  /** Bounds on a POST body's JSON nesting and values, checked before it is parsed; unbounded if unset. */
  readonly jsonBounds?: JsonBounds
  /** Bounds on an operation's nesting depth and field count; unbounded if unset. */
  readonly limits?: QueryLimits
  /** Bounds on a document's text, checked before it is parsed; defaultDocumentBounds if unset. */
  readonly documentBounds?: DocumentBounds
  /** The port's service, as metrics label it. */
  readonly service?: string
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
 * A result's request errors (variables refused before any resolver), each with its field
 * violation (InputViolations.ts); the result as it is otherwise.
 */
const withVariableViolations = (args: ExecutionArgs, result: ExecutionResult): ExecutionResult =>
  result.data === undefined && result.errors !== undefined
    ? { ...result, errors: variableViolations(args.schema, args.document, args.operationName, args.variableValues, result.errors) }
    : result

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
 * The most of a body read without the token, and how long it may take to arrive: an introspection
 * document is bounded at 16 KiB (DocumentBounds), GraphiQL's own is about 2 KiB. A larger or
 * slower body is refused as unauthenticated: a caller without the token holds a request open for
 * 2 s at most, not until the request timeout.
 */
const tokenlessMaxBytes = 65_536
const tokenlessReadMillis = 2_000

/**
 * A request let through without the token (SCHEMA_ACCESS=open, BearerAuth.ts) is answered only when
 * its operation reads the schema alone (introspection: `__schema`, `__type`, `__typename`); any
 * other — another operation, a body or document that cannot be read — gets the refusal the
 * pipeline deferred, as the pipeline writes it: 401, `www-authenticate`, `errors[]`. The body is
 * read as any other, bounded as any other, and to `tokenlessMaxBytes` and `tokenlessReadMillis`:
 * unlike the other calls without the token, it is refused only once its body is read, or late.
 */
const schemaOnlyWithoutToken = (
  readParams: ReturnType<typeof boundedRequestParams>,
  readTokenless: ReturnType<typeof boundedRequestParams>,
  parseDocument: (text: string) => DocumentNode
) => {
  type Params = Parameters<typeof readParams>[0]
  const tokenless = async (
    request: Params,
    refusal: NonNullable<ReturnType<typeof deferredRefusal>>
  ): Promise<RequestParams | GraphqlHttpResponse> => {
    // graphql-http throws what it cannot read (a body that is not JSON): not introspection either.
    let timer: ReturnType<typeof setTimeout> | undefined
    const params = await Promise.race([
      readTokenless(request).catch(() => undefined),
      new Promise<undefined>((resolve) => timer = setTimeout(() => resolve(undefined), tokenlessReadMillis))
    ])
    clearTimeout(timer)
    // Parameters, not an answer (graphql-http's [body, init] pair).
    if (params !== undefined && "query" in params) {
      const { operationName, query } = params
      try {
        if (typeof query === "string" && introspectionOnly(parseDocument(query), operationName)) return params
      } catch {
        // Not a document: not introspection either.
      }
    }
    answered(request.raw, codeName(refusal.kind))
    // A body still arriving is not read on: over HTTP/2 the client is told to stop sending once the
    // answer is out (RST_STREAM NO_ERROR, as Refusal.ts does), or it could go on sending for nothing.
    const raw = request.raw
    if (raw instanceof http2.Http2ServerRequest && !raw.complete) {
      // On the turn after the answer's 'finish': at 'finish' itself the stream has not sent its end
      // yet (state.localClose 0), and a close there was seen to have no effect.
      raw.stream.once("finish", () =>
        setImmediate(() => {
          if (!raw.stream.destroyed && !raw.stream.state.remoteClose) raw.stream.close(http2.constants.NGHTTP2_NO_ERROR)
        })
      )
    }
    return [
      JSON.stringify(errorBody.graphql(refusal.kind, refusal.message)),
      {
        status: errorTable[refusal.kind].http,
        statusText: "Unauthorized",
        headers: { "content-type": "application/json", ...refusal.headers }
      }
    ]
  }
  return (request: Params): Promise<RequestParams | GraphqlHttpResponse> => {
    const refusal = deferredRefusal(request.raw)
    // A call with the token gets the read itself, not awaited again in an async function here.
    return refusal === undefined ? readParams(request) : tokenless(request, refusal)
  }
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
  const rootValue = Record.map(api.operations, (operation, field) => {
    const holder = api.replies?.[field]
    return (args: GraphqlArgs, context: GraphqlContext, info: GraphQLResolveInfo) =>
      call(Effect.suspend(() => operation(args)), context, info, holder)
  })
  // One cache per handler: a document valid here is valid for this schema and these rules only.
  const limits = options.limits
  const documents = documentCache({
    schema: api.schema,
    maxEntries: 500,
    maxTotalLength: 65_536,
    maxQueryLength: 4_096,
    parseText: boundedParse(options.documentBounds ?? defaultDocumentBounds),
    screen: (document) => {
      const roots = introspectionRootErrors(document)
      return limits === undefined || roots.length > 0 ? roots : limitErrors(document, limits)
    }
  })
  const handlerOptions = {
    schema: api.schema,
    parse: documents.parse,
    validate: (schema: GraphQLSchema, document: DocumentNode, rules?: ReadonlyArray<ValidationRule>) =>
      literalViolations(schema, document, documents.validate(schema, document, rules)),
    execute: introspectionResults({ service: options.service ?? "", maxEntries: 100, maxBytes: 2 * 1024 * 1024 })(execute),
    rootValue,
    context: (request: GraphqlHttpRequest<Request, ResponseContext>): GraphqlContext => ({
      fibers: new ResolverFibers(request.context.res),
      requestId: requestIdIn(request.raw.headers),
      call: callOf(request.raw)
    }),
    // Here rather than around `execute`, whose result is a promise: no second promise a call.
    onOperation: (request: GraphqlHttpRequest<Request, ResponseContext>, args: ExecutionArgs, result: ExecutionResult) =>
      replyWithoutErrors(request.raw.headers.accept, result) ?? requestErrorsAsSuch(withVariableViolations(args, result)),
    parseRequestParams: schemaOnlyWithoutToken(
      boundedRequestParams(options.readMaxBytes ?? Number.POSITIVE_INFINITY, options.jsonBounds),
      boundedRequestParams(Math.min(options.readMaxBytes ?? Number.POSITIVE_INFINITY, tokenlessMaxBytes), options.jsonBounds),
      documents.parse
    ),
    formatError: (error: Readonly<Error>) => {
      const cause = engineError(error)
      if (cause === undefined) return error
      runLog(Effect.logError("GraphQL request failed", Cause.die(cause)))
      return new GraphQLError("internal error", { extensions: { code: errorTable.Internal.graphql } })
    }
  }
  return graphqlHttpAdapter(handlerOptions, (error) => runLog(Effect.logError("GraphQL request failed", Cause.die(error))))
}
