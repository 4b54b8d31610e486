import type { DescMethod } from "@bufbuild/protobuf"
import type { UniversalServerResponse } from "@connectrpc/connect/protocol"
import { reencodeGrpcMessage } from "./overEscapedGrpcMessage.js"
import { readMaxBytesInMessage } from "./readMaxBytesInMessage.js"
import { correctConnectEndStream, correctConnectUnary, correctGrpcFields, correctGrpcWebTrailer, inTurn } from "./RouterError.js"
import { undecodableAsInternal } from "./undecodableAsInternal.js"
import { firstChunk, grpcCodeName, grpcWebCode, headersOf, isRecord, parseJson, type Protocol } from "./Wire.js"

/** The corrections of an error answer, each written once for every protocol's form (RouterError.ts). */
const correctError = inTurn([undecodableAsInternal, readMaxBytesInMessage])

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
      const fix = (fields: Headers) => {
        correctGrpcFields(fields, correctError)
        reencodeGrpcMessage(fields)
        const status = fields.get("grpc-status")
        if (status !== null) settle(grpcCodeName(status))
      }
      fix(header)
      if (trailer === undefined) return { ...answer, header }
      // A unary call's status is final once its first chunk is read (connect-es reads it before
      // answering); a stream's only once the body ends, so its trailers are fixed then.
      if (method.methodKind === "unary") {
        fix(trailer)
        return { ...answer, header, trailer }
      }
      const body = answer.body
      return {
        ...answer,
        header,
        trailer,
        body: (async function*() {
          yield* body
          fix(trailer)
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
