import type { Compression, UniversalHandler, UniversalServerRequest } from "@connectrpc/connect/protocol"
import { connectError } from "../../ErrorTable.js"
import { envelopedBodyBound, type FieldBound, tooManyFieldsMessage, unaryBodyBound } from "../../limits/ProtobufFieldBound.js"
import { isAsyncIterable, type Protocol } from "./Wire.js"

/**
 * Correction 8, unboundedBinaryFields: protobuf-es decodes every field of a binary message, however
 * many: half a million fit in a megabyte, and the event loop is busy for all of them
 * (docs/reliability.md §2g). connect-es decodes in its handler with no hook before `fromBinary`,
 * so the body is read on its way in and a message over PROTOBUF_MAX_FIELDS ends it with
 * resource_exhausted (ProtobufFieldBound.ts).
 */

/** Binary request bodies by protocol; JSON ones (`application/json`, `+json`) are held by the JSON bounds. */
const binaryTypes = new Set([
  "application/proto",
  "application/connect+proto",
  "application/grpc",
  "application/grpc+proto",
  "application/grpc-web",
  "application/grpc-web+proto"
])

/** Where each protocol names its request's compression. */
const encodingHeader: Record<Protocol, string> = {
  connect: "content-encoding",
  "connect-stream": "connect-content-encoding",
  grpc: "grpc-encoding",
  "grpc-web": "grpc-encoding"
}

/** The request with its body held to `maxFields`, when it is binary protobuf; as it was otherwise. */
export const fieldBounded = (options: {
  readonly maxFields: number
  readonly acceptCompression: ReadonlyArray<Compression>
  readonly readMaxBytes: number
}) => {
  const { acceptCompression, maxFields, readMaxBytes } = options
  const refusal = () => connectError("ResourceExhausted", tooManyFieldsMessage(maxFields))
  return (
    handler: UniversalHandler,
    protocol: Protocol,
    universal: UniversalServerRequest,
    raw: Readonly<Record<string, string | Array<string> | undefined>>
  ): UniversalServerRequest => {
    const body = universal.body
    if (maxFields === Number.POSITIVE_INFINITY || universal.method !== "POST" || !isAsyncIterable(body)) return universal
    const contentType = (headerText(raw["content-type"]) ?? "").split(";", 1)[0]!.trim().toLowerCase()
    if (!binaryTypes.has(contentType)) return universal
    const encoding = headerText(raw[encodingHeader[protocol]]) ?? null
    const compressed = encoding !== null && encoding !== "identity"
    // A Connect unary message is the whole body: over HTTP/1.1 one of at most `maxFields` bytes,
    // as its length says and Node holds it to, cannot hold more fields (a tag takes a byte).
    if (protocol === "connect" && !compressed && universal.httpVersion.startsWith("1") && withinBytes(raw["content-length"], maxFields)) {
      return universal
    }
    const bound: FieldBound = {
      message: handler.method.input,
      maxFields,
      compression: acceptCompression.find((compression) => compression.name === encoding),
      readMaxBytes,
      refusal
    }
    return {
      ...universal,
      body: protocol === "connect" ? unaryBodyBound(body, compressed, bound) : envelopedBodyBound(body, bound)
    }
  }
}

/** A header as one text, as the router's copy joins it. */
const headerText = (value: string | Array<string> | undefined): string | undefined =>
  Array.isArray(value) ? value.join(", ") : value

const withinBytes = (contentLength: string | Array<string> | undefined, bytes: number): boolean =>
  typeof contentLength === "string" && /^\d{1,15}$/.test(contentLength) && Number(contentLength) <= bytes
