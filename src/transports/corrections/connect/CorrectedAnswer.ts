import type { DescMethod } from "@bufbuild/protobuf"
import type { UniversalServerResponse } from "@connectrpc/connect/protocol"
import { correctConnectEndStream, correctConnectUnary, correctGrpcFields, correctGrpcWebTrailer, type ErrorCorrection, inTurn } from "./RouterError.js"
import { firstChunk, grpcCodeName, grpcWebCode, headersOf, isRecord, parseJson, percentDecoded, type Protocol } from "./Wire.js"
import { overMaxBodyBytes } from "../../limits/BoundedBody.js"
import { codeToString } from "@connectrpc/connect/protocol-connect"
import { errorTable } from "../../ErrorTable.js"


/**
 * Corrections 5 (undecodableAsInternal), 9 (readMaxBytesInMessage) and 6 (overEscapedGrpcMessage),
 * applied to the router's answer before it is written; `settle` is told the call's code as soon
 * as it is known.
 */
export const corrected = (
  method: DescMethod,
  protocol: Protocol,
  answer: UniversalServerResponse,
  settle: (code: string) => void
): UniversalServerResponse | Promise<UniversalServerResponse> => {
  if (answer.body === undefined || answer.body instanceof Uint8Array) return answer
  switch (protocol) {
    case "grpc": {
      // The router's header and trailer objects are its own, not yet written: fixed in place.
      const header = headersOf(answer.header)
      const trailer = answer.trailer === undefined ? undefined : headersOf(answer.trailer)
      fixGrpcFields(header, settle)
      // A unary call's status is final once its first chunk is read (connect-es reads it before
      // answering); a stream's only once the body ends, so its trailers are fixed then.
      if (trailer !== undefined && method.methodKind === "unary") fixGrpcFields(trailer, settle)
      if (trailer === undefined || method.methodKind === "unary") {
        // The router's own Headers (the usual case) were fixed where they are: the answer is unchanged.
        return header === answer.header && trailer === answer.trailer ? answer : { ...answer, header, ...(trailer === undefined ? {} : { trailer }) }
      }
      const body = answer.body
      return {
        ...answer,
        header,
        trailer,
        body: (async function*() {
          yield* body
          fixGrpcFields(trailer, settle)
        })()
      }
    }
    case "grpc-web":
    case "connect-stream": {
      const correct = protocol === "grpc-web" ? correctGrpcWebTrailer : correctConnectEndStream
      return firstChunk(answer.body).then(({ first, rest }) => {
        const replaced = first === undefined ? undefined : correct(first, correctError)
        if (protocol === "grpc-web") settle(grpcWebCode(replaced ?? first))
        return { ...answer, body: rest(replaced) }
      })
    }
    case "connect": {
      if (answer.status === 200) {
        settle("ok")
        return answer
      }
      return firstChunk(answer.body).then(({ first, rest }): UniversalServerResponse => {
        const corrected = first === undefined ? undefined : correctConnectUnary(answer.status, first, correctError)
        const error = parseJson(corrected?.body ?? first ?? new Uint8Array())
        settle(isRecord(error) && typeof error.code === "string" ? error.code : "unknown")
        if (corrected === undefined) return { ...answer, body: rest(undefined) }
        const header = new Headers(answer.header)
        header.set("content-length", String(corrected.body.byteLength))
        return { ...answer, status: corrected.status, header, body: rest(corrected.body) }
      })
    }
  }
}

/**
 * Correction 6, overEscapedGrpcMessage: the gRPC spec percent-encodes `grpc-message` minimally
 * (printable ASCII but `%` stays as it is). connect-es escapes all that `encodeURIComponent` does,
 * and @grpc/grpc-js decodes with `decodeURI`, which leaves `%3A` and friends in place: its users
 * read "id%3A must be a UUID". Re-encoded the spec's way on gRPC answers (CorrectedAnswer.ts);
 * gRPC-Web clients decode fully and are left alone.
 */

const grpcMessageEncoding = (text: string): string => {
  let out = ""
  for (const byte of Buffer.from(text, "utf8")) {
    out += byte >= 0x20 && byte <= 0x7e && byte !== 0x25
      ? String.fromCharCode(byte)
      : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`
  }
  return out
}

/**
 * gRPC status fields (the trailers, or trailers-only headers) corrected in place, and the call's
 * code told to `settle`. An answer without an error (no status, or 0) has nothing to correct.
 */
const fixGrpcFields = (fields: Headers, settle: (code: string) => void): void => {
  const status = fields.get("grpc-status")
  if (status !== null && status !== "0") correctGrpcFields(fields, correctError)
  reencodeGrpcMessage(fields)
  if (status === "0") settle("ok")
  else if (status !== null) settle(grpcCodeName(fields.get("grpc-status") ?? status))
}

export const reencodeGrpcMessage = (fields: Headers): void => {
  const message = fields.get("grpc-message")
  if (message !== null) fields.set("grpc-message", grpcMessageEncoding(percentDecoded(message)))
}

/**
 * Correction 9, readMaxBytesInMessage: connect-es refuses a message over its `readMaxBytes` with
 * "message size 358 is larger than configured readMaxBytes 200", naming an option of its own that
 * neither the caller nor the operator knows; ours is MAX_BODY_BYTES, which sets it. The message is
 * re-worded on the router's answer before it is written (CorrectedAnswer.ts), its code
 * (resource_exhausted) kept. A size check of our own ahead of the router would answer Connect with
 * the error table's HTTP 413 instead of connect-es's 429 for that code.
 */
const overReadMaxBytes = /^message size (?:\d+ )?is larger than configured readMaxBytes (\d+)$/

export const readMaxBytesInMessage: ErrorCorrection = (error) => {
  const limit = overReadMaxBytes.exec(error.message)?.[1]
  return limit === undefined ? undefined : { ...error, message: overMaxBodyBytes(Number(limit), "request message") }
}

/**
 * Correction 5, undecodableAsInternal: connect-es answers a request message it cannot decode as
 * `internal` (Connect: HTTP 500; gRPC and gRPC-Web: status 13) — garbage or truncated protobuf
 * ("parse binary: premature EOF"), an envelope flagged compressed with no `grpc-encoding` — though
 * the caller is at fault (contract §8 wants invalid_argument, as connect-es answers for bad
 * JSON). It decodes before any interceptor runs and its binary read options have no hook, so the
 * router's response is re-coded before it is written (CorrectedAnswer.ts): the message stays, the
 * code becomes invalid_argument. Such a failure always comes before any output, so it is the first
 * (and only) chunk of the body, or the trailers as the router hands them over.
 * A Connect GET whose `message` is not base64 (with `base64=1`) is worse off: the decoder's plain
 * Error becomes "internal error", which nothing tells apart from a real defect, so that request is
 * refused before the router (`getQueryRefusal` in ConnectNodeAdapter.ts).
 */

const decodeFailure = /^(parse binary: |received compressed envelope, but do not know how to decompress$)/

const internal = codeToString(errorTable.Internal.connect)
const invalidArgument = codeToString(errorTable.InvalidArgument.connect)

export const undecodableAsInternal: ErrorCorrection = (error) =>
  error.code === internal && decodeFailure.test(error.message) ? { ...error, code: invalidArgument } : undefined

/** The corrections of an error answer, each written once for every protocol's form (RouterError.ts). */
const correctError = inTurn([undecodableAsInternal, readMaxBytesInMessage])
