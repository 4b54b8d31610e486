import {
  parseRequestParams,
  type Request as GraphqlHttpRequest,
  type RequestParams,
  type Response as GraphqlHttpResponse
} from "graphql-http"
import { Predicate } from "effect"
import type { Readable } from "node:stream"
import { errorBody, errorTable, type FailureKind } from "../ErrorTable.js"
import { overMaxBodyBytes } from "./BoundedBody.js"
import { type JsonBounds, jsonBoundsBroken, unboundedJson } from "./JsonBounds.js"
import { utf8Text } from "../http/Utf8Text.js"
import { strictSearchParams } from "../graphql/StrictText.js"

const refusal = (kind: FailureKind, statusText: string, message: string): GraphqlHttpResponse => [
  JSON.stringify(errorBody.graphql(kind, message)),
  {
    status: errorTable[kind].http,
    statusText,
    headers: { "content-type": "application/json; charset=utf-8" }
  }
]

const tooLarge = (maxBytes: number) =>
  refusal("ResourceExhausted", "Content Too Large", overMaxBodyBytes(maxBytes))

const notJson = refusal(
  "UnsupportedMediaType",
  "Unsupported Media Type",
  "a GraphQL POST must be JSON in UTF-8 (Content-Type: application/json), or use GET for a query"
)

const notUtf8 = (what: string) => refusal("InvalidArgument", "Bad Request", `${what} is not valid UTF-8`)

/**
 * The body's bytes, or undefined as soon as they exceed `maxBytes` (the rest is never buffered).
 * A body that came in one chunk, as a small one does, is that chunk, not a copy of it. `on`, not
 * `once`: 'end' comes once, and `once` wraps each listener anew.
 */
const readUpTo = (body: Readable, maxBytes: number) =>
  new Promise<Buffer | undefined>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= maxBytes) return void chunks.push(chunk)
      body.off("data", onData)
      body.pause()
      resolve(undefined)
    }
    body.on("data", onData)
    body.on("end", () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)))
    body.on("error", reject)
  })

/** What both node:http's and node:http2's requests are. */
type NodeRequest = Readable & { readonly headers: { readonly [name: string]: string | Array<string> | undefined } }

/**
 * The POSTs graphql-http reads, by its own test: `application/json`, in UTF-8 or without a
 * charset. Any other is refused here with 415 and a body that says what to send (graphql-http's
 * own 415 has none), without reading the body.
 */
const isUtf8Json = (contentType: unknown) => {
  // What clients send as a rule, taken without the general reading's three new strings and array.
  if (contentType === "application/json") return true
  const [mediaType, charset = "charset=utf-8"] = String(contentType ?? "").replace(/\s/g, "").toLowerCase().split(";")
  return mediaType === "application/json" && charset === "charset=utf-8"
}

/**
 * A POST's parameters from its JSON text, read and checked as graphql-http's parseRequestParams
 * does (1.23: its errors, which its handler answers with 400 and their message), without looking
 * at the headers again or copying the request to hand it the text.
 */
const postParams = (text: string): RequestParams => {
  if (text === "") throw new Error("Missing body")
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch {
    throw new Error("Unparsable JSON body")
  }
  if (typeof data !== "object" || data === null) throw new Error("JSON body must be an object")
  const query: unknown = Reflect.get(data, "query")
  const variables: unknown = Reflect.get(data, "variables")
  const operationName: unknown = Reflect.get(data, "operationName")
  const extensions: unknown = Reflect.get(data, "extensions")
  if (query === undefined || query === null) throw new Error("Missing query")
  if (typeof query !== "string") throw new Error("Invalid query")
  if (variables !== undefined && variables !== null && !Predicate.isRecord(variables)) throw new Error("Invalid variables")
  if (operationName !== undefined && operationName !== null && typeof operationName !== "string") throw new Error("Invalid operationName")
  if (extensions !== undefined && extensions !== null && !Predicate.isRecord(extensions)) throw new Error("Invalid extensions")
  return { operationName, query, variables, extensions }
}

/** A GET with its query string decoded strictly, and re-encoded for graphql-http to read. */
const strictGet = (request: GraphqlHttpRequest<NodeRequest, unknown>) => {
  const question = request.url.indexOf("?")
  if (question === -1) return parseRequestParams(request)
  const params = strictSearchParams(request.url.slice(question + 1))
  if (!(params instanceof URLSearchParams)) {
    return notUtf8(params.parameter === undefined ? "the query string" : `the ${params.parameter} parameter`)
  }
  return parseRequestParams({ ...request, url: `${request.url.slice(0, question)}?${params}` })
}

/**
 * graphql-http's own request parsing, on a body read only up to `maxBytes` (MAX_BODY_BYTES):
 * its Node adapters would otherwise buffer a body of any size. A larger body is refused with the
 * table's RESOURCE_EXHAUSTED and its REST status, 413; so is one past `jsonBounds`
 * (JSON_MAX_DEPTH, JSON_MAX_VALUES), before graphql-http parses it and graphql-js walks its
 * variables value by value. (A GET's variables are held by the URL's length, node's 16 KiB of
 * headers.) Text that is not UTF-8, in the body or the
 * query string, is refused with INVALID_ARGUMENT (400) rather than read with U+FFFD in its place.
 */
export const boundedRequestParams = (maxBytes: number, jsonBounds: JsonBounds = unboundedJson) =>
async (request: GraphqlHttpRequest<NodeRequest, unknown>): Promise<RequestParams | GraphqlHttpResponse> => {
  if (request.method === "GET") return strictGet(request)
  if (request.method !== "POST") return parseRequestParams(request)
  if (!isUtf8Json(request.raw.headers["content-type"])) return notJson
  if (Number(request.raw.headers["content-length"]) > maxBytes) return tooLarge(maxBytes)
  const bytes = await readUpTo(request.raw, maxBytes)
  if (bytes === undefined) return tooLarge(maxBytes)
  const broken = jsonBoundsBroken(bytes, jsonBounds)
  if (broken !== undefined) return refusal("ResourceExhausted", "Content Too Large", broken)
  const body = utf8Text(bytes)
  return body === undefined ? notUtf8("the request body") : postParams(body)
}
