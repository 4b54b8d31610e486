import { encodeEnvelope } from "@connectrpc/connect/protocol"
import { codeFromString, codeToHttpStatus } from "@connectrpc/connect/protocol-connect"
import { connectEndStreamFlag, grpcCodeName, grpcWebTrailerFlag, isRecord, jsonBytes, parseJson, percentDecoded, soleEnvelope } from "./Wire.js"

/**
 * An error answer of the router in Connect's words, whatever the protocol's form it was written in,
 * so that a correction of an error (its code, its message) is written once for all four forms.
 */
export interface RouterError {
  readonly code: string
  readonly message: string
}

/** The corrected error, or undefined to leave the answer as it is. */
export type ErrorCorrection = (error: RouterError) => RouterError | undefined

/** Each correction applied in turn; undefined when none applied. */
export const inTurn = (corrections: ReadonlyArray<ErrorCorrection>): ErrorCorrection => (error) => {
  let current: RouterError | undefined
  for (const correction of corrections) current = correction(current ?? error) ?? current
  return current
}

/** gRPC trailers (or trailers-only headers), corrected in place; false when left as they were. */
export const correctGrpcFields = (fields: Headers, correct: ErrorCorrection): boolean => {
  const status = fields.get("grpc-status")
  if (status === null || status === "0") return false
  const corrected = correct({ code: grpcCodeName(status), message: percentDecoded(fields.get("grpc-message") ?? "") })
  if (corrected === undefined) return false
  fields.set("grpc-status", String(codeFromString(corrected.code) ?? status))
  fields.set("grpc-message", encodeURIComponent(corrected.message))
  return true
}

/** A gRPC-Web trailer envelope (`name: value` lines) corrected; undefined when it is not one or is left. */
export const correctGrpcWebTrailer = (chunk: Uint8Array, correct: ErrorCorrection): Uint8Array | undefined => {
  const data = soleEnvelope(chunk, grpcWebTrailerFlag)
  if (data === undefined) return undefined
  const fields = new Headers()
  for (const line of Buffer.from(data).toString("utf8").split("\r\n")) {
    const colon = line.indexOf(":")
    if (colon > 0) fields.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim())
  }
  if (!correctGrpcFields(fields, correct)) return undefined
  const lines = [...fields].map(([name, value]) => `${name}: ${value}\r\n`).join("")
  return encodeEnvelope(grpcWebTrailerFlag, Buffer.from(lines, "utf8"))
}

/** A Connect error object `{code, message, …}` corrected, its other members kept; else undefined. */
const correctConnectError = (error: unknown, correct: ErrorCorrection): Record<string, unknown> | undefined => {
  if (!isRecord(error) || typeof error.code !== "string") return undefined
  const corrected = correct({ code: error.code, message: typeof error.message === "string" ? error.message : "" })
  return corrected === undefined ? undefined : { ...error, code: corrected.code, message: corrected.message }
}

/** A Connect stream's end envelope (`{"error": …}`) corrected; else undefined. */
export const correctConnectEndStream = (chunk: Uint8Array, correct: ErrorCorrection): Uint8Array | undefined => {
  const data = soleEnvelope(chunk, connectEndStreamFlag)
  const end = data === undefined ? undefined : parseJson(data)
  if (!isRecord(end)) return undefined
  const error = correctConnectError(end.error, correct)
  return error === undefined ? undefined : encodeEnvelope(connectEndStreamFlag, jsonBytes({ ...end, error }))
}

/** A Connect unary error body corrected, with the HTTP status its code now has; else undefined. */
export const correctConnectUnary = (
  status: number,
  chunk: Uint8Array,
  correct: ErrorCorrection
): { readonly status: number; readonly body: Uint8Array } | undefined => {
  const before = parseJson(chunk)
  const error = correctConnectError(before, correct)
  if (error === undefined) return undefined
  const code = codeFromString(String(error.code))
  const recoded = isRecord(before) && before.code !== error.code && code !== undefined
  return { status: recoded ? codeToHttpStatus(code) : status, body: jsonBytes(error) }
}
