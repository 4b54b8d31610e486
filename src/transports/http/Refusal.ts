import { encodeEnvelope } from "@connectrpc/connect/protocol"
import { endStreamFlag, endStreamToJson } from "@connectrpc/connect/protocol-connect"
import { setTrailerStatus } from "@connectrpc/connect/protocol-grpc"
import * as http2 from "node:http2"
import { connectError, errorBody, errorTable, type FailureKind } from "../ErrorTable.js"
import { answered, codeName, styleOf } from "./Calls.js"
import type { Request, Response } from "./RequestHandler.js"


/** A request answered by the edge, before (or instead of) any handler reading its body. */
export interface Refusal {
  readonly kind: FailureKind
  /** One line, safe to show. Plain words: connect-es percent-encodes it for gRPC, and @grpc/grpc-js decodes with `decodeURI`. */
  readonly message: string
  /** Extra response headers of the non-gRPC forms (`www-authenticate`, `retry-after`). */
  readonly headers?: Readonly<Record<string, string>>
  /** The HTTP status of the non-gRPC forms, when not the table's: 429 for a rate exceeded (RFC 6585). */
  readonly status?: number
}

type Form = "grpc" | "grpc-web" | "connect-stream" | "connect" | "graphql" | "json"

/** Which protocol's error form the caller reads: its style's, Connect streams apart. */
const formOf = (request: Request): Form => {
  const style = styleOf(request)
  if (style === "connect") {
    return (request.headers["content-type"] ?? "").toLowerCase().startsWith("application/connect+") ? "connect-stream" : "connect"
  }
  return style === "rest" || style === "rpc" ? "json" : style
}

const send = (response: Response, status: number, headers: Record<string, string>, body?: Uint8Array | string) => {
  response.statusCode = status
  for (const [name, value] of Object.entries(headers)) response.setHeader(name, value)
  if (body !== undefined) response.setHeader("content-length", Buffer.byteLength(body))
  // Headers set rather than passed to writeHead: over HTTP/2 that makes a body-less answer one
  // HEADERS frame with END_STREAM, which is what gRPC calls trailers-only.
  if (body === undefined) response.end()
  else response.end(body)
}

/**
 * Answers `request` with `refusal` in the form its protocol defines, using connect-es's encoders
 * for Connect and gRPC: gRPC and gRPC-Web as trailers-only (HTTP 200, grpc-status in the
 * headers), Connect unary as a JSON error, Connect streaming as an end-of-stream message,
 * GraphQL as `errors[]`, and REST and `/rpc` as `{code, message, details}`.
 *
 * Over HTTP/2 a client still sending its body is then told to stop with RST_STREAM NO_ERROR (RFC
 * 9113 §8.1: the answer stands), or it could keep the stream open for as long as it likes
 * sending a body nobody reads. Node sends that reset itself after an answer with a body when
 * nothing read the request; not after a trailers-only one, so that is done here.
 */
export const refuse = (request: Request, response: Response, refusal: Refusal): void => {
  const { kind, message } = refusal
  answered(request, codeName(kind))
  const error = connectError(kind, message)
  const status = refusal.status ?? errorTable[kind].http
  const contentType = request.headers["content-type"] ?? ""
  const extra = refusal.headers ?? {}
  const json = { "content-type": "application/json", ...extra }
  const form = formOf(request)
  switch (form) {
    case "grpc":
    case "grpc-web": {
      const headers = setTrailerStatus(new Headers({ "content-type": contentType }), error)
      send(response, 200, Object.fromEntries(headers))
      if (request instanceof http2.Http2ServerRequest && !request.stream.state.remoteClose) {
        request.stream.close(http2.constants.NGHTTP2_NO_ERROR)
      }
      break
    }
    case "connect-stream": {
      const end = new TextEncoder().encode(JSON.stringify(endStreamToJson(new Headers(), error, undefined)))
      send(response, 200, { "content-type": contentType }, encodeEnvelope(endStreamFlag, end))
      break
    }
    case "connect":
      send(response, status, json, JSON.stringify(errorBody.connect(kind, message)))
      break
    case "graphql":
      send(response, status, json, JSON.stringify(errorBody.graphql(kind, message)))
      break
    case "json":
      send(response, status, json, JSON.stringify(errorBody.rest(kind, message)))
  }
}
