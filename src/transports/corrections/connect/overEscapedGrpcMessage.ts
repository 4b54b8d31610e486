import { percentDecoded } from "./Wire.js"

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

export const reencodeGrpcMessage = (fields: Headers): void => {
  const message = fields.get("grpc-message")
  if (message !== null) fields.set("grpc-message", grpcMessageEncoding(percentDecoded(message)))
}
