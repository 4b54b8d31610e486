import {
  parseRequestParams,
  type Request as GraphqlHttpRequest,
  type RequestParams,
  type Response as GraphqlHttpResponse
} from "graphql-http"
import type { Readable } from "node:stream"
import { errorTable } from "../ErrorTable.js"

const tooLarge = (maxBytes: number): GraphqlHttpResponse => [
  JSON.stringify({
    errors: [{
      message: `request body is larger than ${maxBytes} bytes`,
      extensions: { code: errorTable.ResourceExhausted.graphql }
    }]
  }),
  {
    status: errorTable.ResourceExhausted.http,
    statusText: "Content Too Large",
    headers: { "content-type": "application/json; charset=utf-8" }
  }
]

/** The body as text, or undefined as soon as it exceeds `maxBytes` (the rest is never buffered). */
const readUpTo = (body: Readable, maxBytes: number) =>
  new Promise<string | undefined>((resolve, reject) => {
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
    body.once("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    body.once("error", reject)
  })

/** What both node:http's and node:http2's requests are. */
type NodeRequest = Readable & { readonly headers: { readonly [name: string]: string | Array<string> | undefined } }

/**
 * graphql-http's own request parsing, on a body read only up to `maxBytes` (MAX_BODY_BYTES):
 * its Node adapters would otherwise buffer a body of any size. A larger body is refused with the
 * table's RESOURCE_EXHAUSTED and its REST status, 413.
 */
export const boundedRequestParams = (maxBytes: number) =>
async (request: GraphqlHttpRequest<NodeRequest, unknown>): Promise<RequestParams | GraphqlHttpResponse> => {
  if (request.method !== "POST") return parseRequestParams(request)
  if (Number(request.raw.headers["content-length"]) > maxBytes) return tooLarge(maxBytes)
  const body = await readUpTo(request.raw, maxBytes)
  return body === undefined ? tooLarge(maxBytes) : parseRequestParams({ ...request, body })
}
