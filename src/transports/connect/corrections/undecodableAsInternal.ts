import { encodeEnvelope } from "@connectrpc/connect/protocol"
import { errorBody, errorTable } from "../../ErrorTable.js"
import { connectEndStreamFlag, grpcWebTrailerFlag, isRecord, jsonBytes, parseJson, percentDecoded, soleEnvelope } from "./Wire.js"

/**
 * Correction 5, undecodableAsInternal: connect-es answers a request message it cannot decode as
 * `internal` (Connect: HTTP 500; gRPC and gRPC-Web: status 13) — garbage or truncated protobuf
 * ("parse binary: premature EOF"), an envelope flagged compressed with no `grpc-encoding` — though
 * the caller is at fault (contract §3.7 wants invalid_argument, as connect-es answers for bad
 * JSON). It decodes before any interceptor runs and its binary read options have no hook, so the
 * router's response is re-coded before it is written (CorrectedAnswer.ts): the message stays, the
 * code becomes invalid_argument. Such a failure always comes before any output, so it is the first
 * (and only) chunk of the body, or the trailers as the router hands them over.
 * A Connect GET whose `message` is not base64 (with `base64=1`) is worse off: the decoder's plain
 * Error becomes "internal error", which nothing tells apart from a real defect, so that request is
 * refused before the router (getQueryRefusal.ts).
 */

const decodeFailure = /^(parse binary: |received compressed envelope, but do not know how to decompress$)/
const internal = errorTable.Internal
export const recodedAs = errorTable.InvalidArgument

const isUndecodable = (grpcStatus: string | null, grpcMessage: string | null): boolean =>
  grpcStatus === String(internal.grpc) && grpcMessage !== null && decodeFailure.test(percentDecoded(grpcMessage))

/** gRPC trailers (or trailers-only headers) of an undecodable request, re-coded in place. */
export const recodeGrpcStatus = (fields: Headers): void => {
  if (isUndecodable(fields.get("grpc-status"), fields.get("grpc-message"))) fields.set("grpc-status", String(recodedAs.grpc))
}

/** A Connect error object `{code: "internal", message: "parse binary: ..."}`, re-coded; else undefined. */
const recodedConnectError = (error: unknown): Record<string, unknown> | undefined => {
  if (!isRecord(error)) return undefined
  return error.code === errorBody.connect("Internal", "").code && typeof error.message === "string" &&
      decodeFailure.test(error.message)
    ? { ...error, code: errorBody.connect("InvalidArgument", "").code }
    : undefined
}

export const recodeGrpcWebTrailer = (chunk: Uint8Array): Uint8Array | undefined => {
  const data = soleEnvelope(chunk, grpcWebTrailerFlag)
  if (data === undefined) return undefined
  const lines = Buffer.from(data).toString("utf8").split("\r\n")
  const value = (name: string) => {
    const line = lines.find((each) => each.toLowerCase().startsWith(`${name}:`))
    return line === undefined ? null : line.slice(line.indexOf(":") + 1).trim()
  }
  if (!isUndecodable(value("grpc-status"), value("grpc-message"))) return undefined
  const recoded = lines.map((line) => line.toLowerCase().startsWith("grpc-status:") ? `grpc-status: ${recodedAs.grpc}` : line)
  return encodeEnvelope(grpcWebTrailerFlag, Buffer.from(recoded.join("\r\n"), "utf8"))
}

export const recodeConnectEndStream = (chunk: Uint8Array): Uint8Array | undefined => {
  const data = soleEnvelope(chunk, connectEndStreamFlag)
  const end = data === undefined ? undefined : parseJson(data)
  const error = isRecord(end) ? recodedConnectError(end.error) : undefined
  return error === undefined ? undefined : encodeEnvelope(connectEndStreamFlag, jsonBytes({ ...(end as object), error }))
}

export const recodeConnectUnary = (status: number, chunk: Uint8Array): Uint8Array | undefined => {
  if (status !== internal.http) return undefined
  const error = recodedConnectError(parseJson(chunk))
  return error === undefined ? undefined : jsonBytes(error)
}
