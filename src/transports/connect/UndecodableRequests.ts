import { base64Decode } from "@bufbuild/protobuf/wire"
import { MethodOptions_IdempotencyLevel } from "@bufbuild/protobuf/wkt"
import type { OutgoingHttpHeaders } from "node:http"
import type { Request, RequestHandler, Response } from "../http/PortListener.js"
import { methodPath, servedServices } from "./ServedServices.js"

/**
 * connect-es reports a request message it cannot decode as `internal` (Connect: HTTP 500; gRPC and
 * gRPC-Web: status 13): garbage or truncated protobuf bytes ("parse binary: premature EOF"), and an
 * envelope flagged compressed without a `grpc-encoding` to decompress it. Both are the caller's
 * mistake, not the server's, so the contract (contract §3.7) wants `invalid_argument`, as connect-es
 * already answers for undecodable JSON. Its handlers build that error before any interceptor runs,
 * so the answer is corrected on its way out: the message stays, the code becomes invalid_argument.
 *
 * A Connect GET whose `message` parameter is not base64 (with `base64=1`) is worse off: connect-es
 * lets the decoder's plain Error through, which becomes "internal error". Nothing tells that
 * answer apart from a real defect, so that request is refused before connect-es sees it.
 */

const decodeFailures = [/^parse binary: /, /^received compressed envelope, but do not know how to decompress$/]

const isDecodeFailure = (message: string): boolean => decodeFailures.some((pattern) => pattern.test(message))

const percentDecoded = (value: string): string => {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}

const connectCodeInternal = "internal"
const connectCodeInvalidArgument = "invalid_argument"
const grpcInternal = "13"
const grpcInvalidArgument = "3"

/** A Connect error body `{"code":"internal","message":"parse binary: ..."}`, re-coded; undefined if it is another error. */
const recodedConnectError = (error: unknown): Record<string, unknown> | undefined => {
  if (typeof error !== "object" || error === null) return undefined
  const { code, message } = error as { code?: unknown; message?: unknown }
  return code === connectCodeInternal && typeof message === "string" && isDecodeFailure(message)
    ? { ...error, code: connectCodeInvalidArgument }
    : undefined
}

const parseJson = (bytes: Uint8Array): unknown => {
  try {
    return JSON.parse(Buffer.from(bytes).toString("utf8"))
  } catch {
    return undefined
  }
}

const asBytes = (chunk: unknown): Uint8Array | undefined =>
  chunk instanceof Uint8Array ? chunk : typeof chunk === "string" ? Buffer.from(chunk, "utf8") : undefined

/** Trailers `grpc-status: 13` with a decode failure as `grpc-message` become status 3. */
const recodeGrpcStatus = (headers: OutgoingHttpHeaders | undefined): void => {
  if (headers === undefined) return
  const status = Object.keys(headers).find((name) => name.toLowerCase() === "grpc-status")
  const message = Object.keys(headers).find((name) => name.toLowerCase() === "grpc-message")
  if (status === undefined || message === undefined || String(headers[status]) !== grpcInternal) return
  if (isDecodeFailure(percentDecoded(String(headers[message])))) headers[status] = grpcInvalidArgument
}

/** One enveloped message: a flags byte, a 4-byte big-endian length, the data. */
const envelope = (flags: number, data: Uint8Array): Buffer => {
  const out = Buffer.alloc(5 + data.length)
  out[0] = flags
  out.writeUInt32BE(data.length, 1)
  out.set(data, 5)
  return out
}

/** The single uncompressed envelope with `flags` that `chunk` consists of, if it is one. */
const soleEnvelope = (chunk: Uint8Array, flags: number): Uint8Array | undefined => {
  if (chunk.length < 5 || chunk[0] !== flags) return undefined
  const length = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).readUInt32BE(1)
  return 5 + length === chunk.length ? chunk.subarray(5) : undefined
}

/** gRPC-Web carries its trailers as the last envelope (flag 0x80), `name: value` lines in it. */
const grpcWebTrailerFlag = 0x80
const recodeGrpcWebTrailer = (chunk: Uint8Array): Uint8Array => {
  const data = soleEnvelope(chunk, grpcWebTrailerFlag)
  if (data === undefined) return chunk
  const lines = Buffer.from(data).toString("utf8").split("\r\n")
  const field = (name: string) => lines.findIndex((line) => line.toLowerCase().startsWith(`${name}:`))
  const status = field("grpc-status")
  const message = field("grpc-message")
  if (status === -1 || message === -1 || lines[status]!.split(":")[1]!.trim() !== grpcInternal) return chunk
  if (!isDecodeFailure(percentDecoded(lines[message]!.slice(lines[message]!.indexOf(":") + 1).trim()))) return chunk
  lines[status] = `grpc-status: ${grpcInvalidArgument}`
  return envelope(grpcWebTrailerFlag, Buffer.from(lines.join("\r\n"), "utf8"))
}

/** Connect streaming ends with an EndStreamResponse envelope (flag 0x02): `{"error": {...}}`. */
const connectEndStreamFlag = 0x02
const recodeConnectEndStream = (chunk: Uint8Array): Uint8Array => {
  const data = soleEnvelope(chunk, connectEndStreamFlag)
  if (data === undefined) return chunk
  const end = parseJson(data) as { error?: unknown } | undefined
  const error = end === undefined ? undefined : recodedConnectError(end.error)
  return error === undefined ? chunk : envelope(connectEndStreamFlag, Buffer.from(JSON.stringify({ ...end, error })))
}

type Write = (chunk: unknown, ...rest: Array<unknown>) => boolean

/** Passes every body chunk through `recode` on its way out. */
const recodeChunks = (response: Response, recode: (chunk: Uint8Array) => Uint8Array) => {
  const write = response.write.bind(response) as Write
  Object.assign(response, {
    write: (chunk: unknown, ...rest: Array<unknown>) => {
      const bytes = asBytes(chunk)
      return write(bytes === undefined ? chunk : recode(bytes), ...rest)
    }
  })
}

type WriteHead = (status: number, headers?: OutgoingHttpHeaders) => unknown
type End = (...args: Array<unknown>) => unknown

/**
 * Connect unary: a 500 is held back until its body shows what it is; a decode failure goes out as
 * 400 invalid_argument (the status the Connect protocol gives that code), anything else unchanged.
 */
const recodeConnectUnary = (response: Response) => {
  const writeHead = response.writeHead.bind(response) as WriteHead
  const write = response.write.bind(response) as Write
  const end = response.end.bind(response) as End
  let held: { status: number; headers: OutgoingHttpHeaders | undefined } | undefined
  const release = (chunk: unknown): unknown => {
    if (held === undefined) return chunk
    const { headers, status } = held
    held = undefined
    const bytes = asBytes(chunk)
    const error = bytes === undefined ? undefined : recodedConnectError(parseJson(bytes))
    if (error === undefined) {
      writeHead(status, headers)
      return chunk
    }
    const body = Buffer.from(JSON.stringify(error), "utf8")
    const rest = Object.fromEntries(Object.entries(headers ?? {}).filter(([name]) => name.toLowerCase() !== "content-length"))
    writeHead(400, { ...rest, "content-length": body.length })
    return body
  }
  Object.assign(response, {
    writeHead: (status: number, headers?: OutgoingHttpHeaders) => {
      if (status !== 500 || typeof headers !== "object") return writeHead(status, headers)
      held = { status, headers }
      return response
    },
    write: (chunk: unknown, ...rest: Array<unknown>) => write(release(chunk), ...rest),
    end: (...args: Array<unknown>) => {
      const [first, ...rest] = args
      const hasChunk = first !== undefined && typeof first !== "function"
      if (!hasChunk) {
        release(undefined)
        return end(...args)
      }
      return end(release(first), ...rest)
    }
  })
}

const recodeGrpc = (response: Response) => {
  const writeHead = response.writeHead.bind(response) as WriteHead
  const addTrailers = response.addTrailers.bind(response)
  Object.assign(response, {
    // A trailers-only answer carries the status among the headers.
    writeHead: (status: number, headers?: OutgoingHttpHeaders) => {
      recodeGrpcStatus(headers)
      return writeHead(status, headers)
    },
    addTrailers: (trailers: OutgoingHttpHeaders) => {
      recodeGrpcStatus(trailers)
      addTrailers(trailers)
    }
  })
}

/** Paths a Connect GET may call: the side-effect-free methods. */
const gettable = new Set(servedServices.flatMap((service) =>
  service.methods
    .filter((method) => method.idempotency === MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS)
    .map((method) => methodPath(service, method))
))

/** A Connect GET with `base64=1` and a `message` that is not base64, in an encoding connect-es reads. */
const undecodableGet = (request: Request): boolean => {
  if (request.method !== "GET") return false
  const url = new URL(request.url ?? "/", "http://localhost")
  if (!gettable.has(url.pathname) || url.searchParams.get("base64") !== "1") return false
  if (!["json", "proto"].includes(url.searchParams.get("encoding") ?? "")) return false
  try {
    base64Decode(url.searchParams.get("message") ?? "")
    return false
  } catch {
    return true
  }
}

const refuseGet = (response: Response) => {
  const body = JSON.stringify({
    code: connectCodeInvalidArgument,
    message: "message: the query parameter is not base64 (base64=1)"
  })
  response.writeHead(400, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
  response.end(body)
}

export const withUndecodableAsInvalidArgument = (handler: RequestHandler): RequestHandler =>
(request: Request, response: Response) => {
  if (undecodableGet(request)) return refuseGet(response)
  const contentType = (request.headers["content-type"] ?? "").toLowerCase()
  if (contentType.startsWith("application/grpc-web")) recodeChunks(response, recodeGrpcWebTrailer)
  else if (contentType.startsWith("application/grpc")) recodeGrpc(response)
  else if (contentType.startsWith("application/connect+")) recodeChunks(response, recodeConnectEndStream)
  else recodeConnectUnary(response)
  handler(request, response)
}
