import type { DescMessage, DescService } from "@bufbuild/protobuf"
import type { Readable } from "node:stream"
import { FieldViolation, InvalidArgument } from "../../domain/Errors.js"
import { parseMicros, timestampRule } from "../../domain/Timestamp.js"
import type { Request, RequestHandler, Response } from "../http/PortListener.js"
import { methodPath, servedServices } from "./ServedServices.js"

/**
 * Timestamps in Connect JSON (and gRPC / gRPC-Web with the JSON codec), held to the domain's rule.
 *
 * connect-es reads a JSON google.protobuf.Timestamp with protobuf-es, which checks the text's shape
 * and then hands it to `Date.parse`, which rolls impossible dates over: `2023-02-30T00:00:00Z`
 * arrives as March 2, `T24:00:00` as the next day, and the service can no longer tell. REST,
 * GraphQL and /rpc refuse those (contract §3.3: a timestamp is RFC 3339). So before connect-es sees
 * such a request, each Timestamp field in its JSON is checked with the domain's parser, and a
 * refusal names the field's path (`license.start: must be an RFC 3339 timestamp ...`) like the
 * other styles do, instead of protobuf-es's pathless "cannot decode message google.protobuf.Timestamp".
 *
 * Only unary methods whose request holds a Timestamp are looked at; everything else passes
 * straight through. The body is read (up to `maxCheckedBytes`; a larger one is passed on unchecked,
 * and MAX_BODY_BYTES refuses it unless it was raised above that) and then replayed to connect-es.
 */

const timestampType = "google.protobuf.Timestamp"
const maxCheckedBytes = 1024 * 1024

const holdsTimestamp = (message: DescMessage, seen: ReadonlySet<string> = new Set()): boolean =>
  message.fields.some((field) =>
    field.fieldKind === "message" &&
    (field.message.typeName === timestampType ||
      (!seen.has(field.message.typeName) && holdsTimestamp(field.message, new Set([...seen, message.typeName]))))
  )

const checkedMethods = (services: ReadonlyArray<DescService>): ReadonlyMap<string, DescMessage> =>
  new Map(services.flatMap((service) =>
    service.methods
      .filter((method) => method.methodKind === "unary" && holdsTimestamp(method.input))
      .map((method) => [methodPath(service, method), method.input] as const)
  ))

const methods = checkedMethods(servedServices)

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** `field.path: rule` for every Timestamp in `json` (read as `message`) that the domain refuses. */
const violations = (message: DescMessage, json: unknown, path: ReadonlyArray<string> = []): Array<string> => {
  if (!isRecord(json)) return [] // not an object: connect-es refuses it with its own message
  return message.fields.flatMap((field) => {
    if (field.fieldKind !== "message") return []
    const keys = [...new Set([field.jsonName, field.name])].filter((key) => Object.hasOwn(json, key))
    const values = keys.map((key) => json[key])
    const at = [...path, field.jsonName]
    return values.flatMap((value) => {
      if (value === null) return [] // proto3 JSON: null is "not set"
      if (field.message.typeName !== timestampType) return violations(field.message, value, at)
      return typeof value === "string" && parseMicros(value) !== undefined ? [] : [at.join(".")]
    })
  })
}

type Protocol = "connect" | "grpc" | "grpc-web"

const protocolOf = (contentType: string): Protocol | undefined => {
  const type = contentType.split(";")[0]!.trim().toLowerCase()
  if (type === "application/json") return "connect"
  if (type === "application/grpc+json") return "grpc"
  if (type === "application/grpc-web+json") return "grpc-web"
  return undefined
}

/** The message of an enveloped (gRPC, gRPC-Web) body: one uncompressed envelope, else undefined. */
const unenveloped = (body: Buffer): Buffer | undefined =>
  body.length >= 5 && body[0] === 0 && 5 + body.readUInt32BE(1) === body.length ? body.subarray(5) : undefined

/** The spec's grpc-message encoding: printable ASCII but `%` as it is, everything else %XX. */
const grpcMessage = (text: string): string =>
  [...Buffer.from(text, "utf8")].map((byte) =>
    byte >= 0x20 && byte <= 0x7e && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`
  ).join("")

/** invalid_argument in the request's own protocol. */
const refuse = (response: Response, protocol: Protocol, contentType: string, message: string): void => {
  if (protocol === "connect") {
    const body = JSON.stringify({ code: "invalid_argument", message })
    response.writeHead(400, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
    response.end(body)
  } else if (protocol === "grpc") {
    // Trailers-only: the status travels with the headers.
    response.writeHead(200, { "content-type": contentType, "grpc-status": "3", "grpc-message": grpcMessage(message) })
    response.end()
  } else {
    const trailer = Buffer.from(`grpc-status: 3\r\ngrpc-message: ${grpcMessage(message)}\r\n`, "utf8")
    const frame = Buffer.alloc(5 + trailer.length)
    frame[0] = 0x80
    frame.writeUInt32BE(trailer.length, 1)
    trailer.copy(frame, 5)
    response.writeHead(200, { "content-type": contentType })
    response.end(frame)
  }
}

interface ReadBody {
  readonly chunks: ReadonlyArray<Buffer>
  /** Whether the whole body was read (else it was larger than `maxCheckedBytes`, or failed). */
  readonly complete: boolean
  /** Replays the body to whoever reads the request next. */
  readonly replay: () => void
}

/** Reads the body through the request's own async iterator, then lets it be read again from the start. */
const readBody = async (request: Request): Promise<ReadBody> => {
  const stream = request as Readable
  const iterator = stream[Symbol.asyncIterator]()
  const chunks: Array<Buffer> = []
  let size = 0
  let done = false
  let failure: { readonly error: unknown } | undefined
  try {
    while (size <= maxCheckedBytes) {
      const next = await iterator.next()
      if (next.done === true) {
        done = true
        break
      }
      const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value as Uint8Array)
      chunks.push(chunk)
      size += chunk.length
    }
  } catch (error) {
    failure = { error }
  }
  const replay = () => {
    Object.defineProperty(stream, Symbol.asyncIterator, {
      configurable: true,
      value: async function*() {
        let finished = done
        try {
          yield* chunks
          if (failure !== undefined) throw failure.error
          for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) yield next.value
          finished = true
        } finally {
          if (!finished) await iterator.return?.()
        }
      }
    })
  }
  return { chunks, complete: done, replay }
}

export const withStrictJsonTimestamps = (handler: RequestHandler): RequestHandler => (request, response) => {
  const message = request.method === "POST" ? methods.get((request.url ?? "").split("?")[0]!) : undefined
  const contentType = request.headers["content-type"] ?? ""
  const protocol = message === undefined ? undefined : protocolOf(contentType)
  // A compressed Connect body is passed on unchecked (gRPC envelopes say for themselves).
  const compressed = protocol === "connect" && (request.headers["content-encoding"] ?? "identity") !== "identity"
  if (message === undefined || protocol === undefined || compressed) return handler(request, response)
  void readBody(request).then(({ chunks, complete, replay }) => {
    if (complete) {
      const body = Buffer.concat(chunks)
      const json = protocol === "connect" ? body : unenveloped(body)
      let parsed: unknown
      try {
        parsed = json === undefined ? undefined : JSON.parse(json.toString("utf8"))
      } catch {
        parsed = undefined // connect-es answers malformed JSON itself
      }
      const refused = violations(message, parsed)
      if (refused.length > 0) {
        const error = InvalidArgument.fromViolations(
          refused.map((field) => new FieldViolation({ field, description: timestampRule }))
        )
        return refuse(response, protocol, contentType, error.message)
      }
    }
    replay()
    handler(request, response)
  }).catch((error: unknown) => {
    // Never an unhandled rejection: that would end the process.
    console.error(`Connect handler for ${request.method} ${request.url} threw`, error)
    if (response.headersSent) return void response.end()
    const body = JSON.stringify({ code: "internal", message: "internal error" })
    response.writeHead(500, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
    response.end(body)
  })
}
