import type { ExecutionResult } from "./GraphqlJs.js"
import { createHandler, type HandlerOptions, type OperationContext, type Response as GraphqlHttpResponse } from "graphql-http"
import * as http2 from "node:http2"
import type { Request, RequestHandler, Response } from "../http/RequestHandler.js"

/** What graphql-http's handler is given of a request besides its raw one: the response it is answered on. */
export interface ResponseContext {
  readonly res: Response
}

type MediaType = "application/graphql-response+json" | "application/json"

/** graphql-http's choice of media type for a request's Accept (1.23's handler, word for word): the first it serves. */
const mediaTypeFor = (accept: string | undefined): MediaType | null => {
  for (const each of (accept || "*/*").replace(/\s/g, "").toLowerCase().split(",")) {
    const [mediaType, ...params] = each.split(";")
    const charset = params.find((param) => param.includes("charset=")) || "charset=utf-8"
    if (mediaType === "application/graphql-response+json" && charset === "charset=utf-8") return mediaType
    if (
      (mediaType === "application/json" || mediaType === "application/*" || mediaType === "*/*") &&
      (charset === "charset=utf-8" || charset === "charset=utf8")
    ) return "application/json"
  }
  return null
}

/** Accept headers seen, with their media type: clients send the same one or two. Bounded, oldest out. */
const mediaTypes = new Map<string | undefined, MediaType | null>()
const maxMediaTypes = 64

const contentTypes: Record<MediaType, string> = {
  "application/graphql-response+json": "application/graphql-response+json; charset=utf-8",
  "application/json": "application/json; charset=utf-8"
}

/**
 * The reply to a result without errors, as graphql-http would make it (200, the body, the media
 * type the request accepts), or undefined for any other. graphql-http writes every result's JSON
 * through a replacer that turns an `Error` other than a GraphQLError into its message: a result
 * without errors has none (its data holds what the schema's scalars serialised), and JSON.stringify
 * without a replacer is several times faster. For `onOperation`, whose answer graphql-http sends as is.
 */
export const replyWithoutErrors = (accept: string | undefined, result: ExecutionResult): GraphqlHttpResponse | undefined => {
  if (result.errors !== undefined || result.data === undefined) return undefined
  let mediaType = mediaTypes.get(accept)
  if (mediaType === undefined) {
    mediaType = mediaTypeFor(accept)
    if (mediaTypes.size >= maxMediaTypes) mediaTypes.delete(mediaTypes.keys().next().value)
    mediaTypes.set(accept, mediaType)
  }
  // null: graphql-http refused the request (406) before anything ran; never here.
  if (mediaType === null) return undefined
  return [JSON.stringify(result), { status: 200, statusText: "OK", headers: { "content-type": contentTypes[mediaType] } }]
}

/**
 * Writes graphql-http's reply with its length: without one, a reply node:http writes after
 * `writeHead` goes out chunked (a chunk's header and the last chunk written beside the body).
 * Its headers are set one by one, as `writeHead` itself would set them beside those set before
 * (the request id's), without a copy of them to add the length. HTTP/2 has no status text (node
 * warns of one), so its reply goes without.
 */
const reply = (response: Response, [body, init]: GraphqlHttpResponse): void => {
  // Answered already (the pipeline's request timeout) or gone: nothing more to write, as node's
  // own writeHead on a closed HTTP/2 stream writes nothing.
  if (response.headersSent || response.destroyed) return
  const headers = init.headers
  if (headers !== undefined) {
    for (const name in headers) {
      const value = headers[name]
      if (value !== undefined) response.setHeader(name, value)
    }
  }
  if (body) response.setHeader("content-length", Buffer.byteLength(body))
  // A response always comes from the same server, node:http or node:http2, as its request.
  if (response instanceof http2.Http2ServerResponse) response.writeHead(init.status)
  else response.writeHead(init.status, init.statusText)
  if (body) response.end(body)
  else response.end()
}

/**
 * graphql-http's handler served over node:http and node:http2, in place of its `use/http` and
 * `use/http2` adapters, which do the same but for the reply's length (`reply`), and hand the
 * handler a body reader no request here needs: the body is read by the handler's
 * `parseRequestParams` (BoundedRequestParams.ts). As theirs do, a request without a URL or
 * method, or a handler that throws (graphql-http's never does), gets an empty 500; `failed` says why.
 */
export const graphqlHttpAdapter = <Context extends OperationContext>(
  options: HandlerOptions<Request, ResponseContext, Context>,
  failed: (error: unknown) => void
): RequestHandler => {
  const handle = createHandler(options)
  const fail = (response: Response, error: unknown) => {
    failed(error)
    if (!response.headersSent && !response.destroyed) response.writeHead(500).end()
  }
  return (request, response) => {
    const { url, method } = request
    if (!url || !method) return fail(response, new Error("a request without a URL or method"))
    handle({ url, method, headers: request.headers, body: null, raw: request, context: { res: response } }).then(
      (answer) => {
        try {
          reply(response, answer)
        } catch (error) {
          fail(response, error)
        }
      },
      (error: unknown) => fail(response, error)
    )
  }
}
