import type { DescMessage, DescMethod, DescService } from "@bufbuild/protobuf"
import { base64Decode } from "@bufbuild/protobuf/wire"
import {
  Code,
  type ConnectRouter,
  type ConnectRouterOptions,
  ConnectError,
  createConnectRouter,
  createContextKey,
  createContextValues,
  createServiceImplSpec
} from "@connectrpc/connect"
import { compressionBrotli, compressionGzip, universalRequestFromNodeRequest, universalResponseToNodeResponse } from "@connectrpc/connect-node"
import {
  encodeEnvelope,
  type UniversalHandler,
  type UniversalServerRequest,
  type UniversalServerResponse
} from "@connectrpc/connect/protocol"
import { FieldViolation, InvalidArgument } from "../../domain/Errors.js"
import { parseMicros, timestampRule } from "../../domain/Timestamp.js"
import { connectError, errorBody, errorTable, type FailureKind } from "../ErrorTable.js"
import type { Request, RequestHandler, Response } from "../http/PortListener.js"
import { codeToString } from "@connectrpc/connect/protocol-connect"
import { answered, type Call, callOf, codeName } from "../http/Calls.js"
import { refuse } from "../http/Refusal.js"
import { type JsonBounds, jsonBoundsBroken, unboundedJson } from "../http/JsonBounds.js"
import { envelopedBodyBound, type FieldBound, tooManyFieldsMessage, unaryBodyBound } from "./ProtobufFieldBound.js"

/**
 * connect-node's adapter (`connectNodeAdapter`, 30 lines upstream), assembled here from the same
 * public parts — `createConnectRouter`, `universalRequestFromNodeRequest`,
 * `universalResponseToNodeResponse` — so that every correction we make to connect-node 2.1.1
 * lives in this one file, at a seam: on the request before the router sees it, in the JSON read
 * options the router takes, or on the router's response object before it is written. Nothing
 * replaces methods on a live Node response.
 *
 * Each correction below is named after the upstream behaviour it corrects, and
 * test/transports/connect-node-upstream.test.ts shows that behaviour on connect-node's own adapter:
 * an upgrade that fixes or changes one fails a test there, and the correction must go or change
 * with it instead of being applied twice. 2.2.0 was checked and fixes none of them.
 */

// ---------------------------------------------------------------------------------------------
// 1. hostlessRequestThrows: `universalRequestFromNodeRequest` builds the URL from the authority and
//    throws, synchronously, when there is none (HTTP/1.0 without Host). Thrown from the "request"
//    listener that is an uncaught exception, which ends the process: one 60-byte request took a
//    port down. Refused here before the conversion; anything else thrown synchronously is answered
//    `internal` and logged.
// ---------------------------------------------------------------------------------------------

const hostless = (request: Request): boolean => {
  const authority = "authority" in request ? request.authority : request.headers.host
  return authority === undefined || authority === ""
}

// ---------------------------------------------------------------------------------------------
// 2. timerOverflowDeadlines: connect-node arms one `setTimeout` per call for the client's
//    deadline, and Node fires a timer at once when its delay does not fit a signed 32-bit count
//    of milliseconds (about 24.8 days): `grpc-timeout: 600H` or `connect-timeout-ms` above
//    2147483647 expired as the call began. Such a deadline is dropped, as if none was set: no call
//    of ours runs longer than its operation budget (services/Transient.ts, seconds), so a deadline
//    weeks away can never be the one that ends a call. A malformed value is left for connect-node
//    to refuse.
// ---------------------------------------------------------------------------------------------

const maxTimerMillis = 2_147_483_647
const grpcUnitMillis: Record<string, number> = { H: 3_600_000, M: 60_000, S: 1_000, m: 1, u: 1e-3, n: 1e-6 }
const deadlineMillis: ReadonlyArray<readonly [string, (value: string) => number | undefined]> = [
  ["grpc-timeout", (value) => {
    const match = /^(\d{1,8})([HMSmun])$/.exec(value)
    return match === null ? undefined : Number(match[1]) * grpcUnitMillis[match[2]!]!
  }],
  ["connect-timeout-ms", (value) => (/^\d{1,10}$/.test(value) ? Number(value) : undefined)]
]

const dropTimerOverflowDeadlines = (header: Headers): void => {
  for (const [name, millis] of deadlineMillis) {
    const value = header.get(name)
    if (value !== null && (millis(value) ?? 0) > maxTimerMillis) header.delete(name)
  }
}

// ---------------------------------------------------------------------------------------------
// 3. lenientUtf8: connect-es decodes JSON messages with a lenient TextDecoder and a Connect GET's
//    query with URLSearchParams, both of which turn bytes that are not UTF-8 into U+FFFD: the
//    caller's text would be stored changed without a word, while binary protobuf refuses the same
//    bytes. JSON messages are decoded strictly through the router's `jsonOptions.textDecoder`; a
//    GET's raw `message` parameter is checked before the router. (connect-es drops a leading BOM,
//    as its own decoder did; a charset other than UTF-8 it already refuses with 415.)
// ---------------------------------------------------------------------------------------------

const notUtf8 = "the request message is not valid UTF-8"
const fatal = new TextDecoder("utf-8", { fatal: true })

/** `decodeURIComponent` refuses escapes that are not UTF-8 (a `%` that starts none is literal, as URLSearchParams reads it). */
const isUtf8QueryValue = (raw: string): boolean => {
  try {
    decodeURIComponent(raw.replace(/\+/g, " ").replace(/%(?![0-9a-fA-F]{2})/g, "%25"))
    return true
  } catch {
    return false
  }
}

/** The raw `message` parameter of a query, if there is one. */
const rawMessageParameter = (query: string): string | undefined => {
  for (const part of query.split("&")) {
    const equals = part.indexOf("=")
    const key = equals === -1 ? part : part.slice(0, equals)
    if (new URLSearchParams(`${key}=`).has("message")) return equals === -1 ? "" : part.slice(equals + 1)
  }
  return undefined
}

// ---------------------------------------------------------------------------------------------
// 4. rolledOverTimestamps: protobuf-es reads a JSON google.protobuf.Timestamp by checking its shape
//    and handing it to `Date.parse`, which rolls impossible dates over (`2023-02-30T00:00:00Z`
//    arrives as March 2, `T24:00:00` as the next day), and refuses others without naming the
//    field. REST, GraphQL and /rpc refuse those (contract §3.3). So the JSON of a method whose
//    request holds a Timestamp is checked with the domain's parser in the same strict decoder, and
//    the refusal names the field's path (`license.start: must be an RFC 3339 timestamp ...`).
// ---------------------------------------------------------------------------------------------

const timestampType = "google.protobuf.Timestamp"

const holdsTimestamp = (message: DescMessage, seen: ReadonlySet<string> = new Set()): boolean =>
  message.fields.some((field) =>
    field.fieldKind === "message" &&
    (field.message.typeName === timestampType ||
      (!seen.has(field.message.typeName) && holdsTimestamp(field.message, new Set([...seen, message.typeName]))))
  )

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The paths of the Timestamps in `json` (read as `message`) that the domain refuses. */
const badTimestamps = (message: DescMessage, json: unknown, path: ReadonlyArray<string> = []): Array<string> => {
  if (!isRecord(json)) return [] // not an object: connect-es refuses it with its own message
  return message.fields.flatMap((field) => {
    if (field.fieldKind !== "message") return []
    const at = [...path, field.jsonName]
    return [...new Set([field.jsonName, field.name])].filter((key) => Object.hasOwn(json, key)).flatMap((key) => {
      const value = json[key]
      if (value === null) return [] // proto3 JSON: null is "not set"
      if (field.message.typeName !== timestampType) return badTimestamps(field.message, value, at)
      return typeof value === "string" && parseMicros(value) !== undefined ? [] : [at.join(".")]
    })
  })
}

const invalidArgument = (message: string) => connectError("InvalidArgument", message)

/**
 * The router's JSON read options for one method: strict UTF-8 (3), its Timestamps checked (4), and
 * the JSON bounds (JSON_MAX_DEPTH, JSON_MAX_VALUES) held before anything parses the text — the
 * decoder is the one seam connect-es gives between a JSON message's bytes and its parser.
 */
export const jsonOptionsFor = (input: DescMessage, bounds: JsonBounds) => {
  const checksTimestamps = holdsTimestamp(input)
  return {
    // Forward compatibility: a newer client's extra JSON fields are ignored, as binary protobuf does.
    ignoreUnknownFields: true,
    textDecoder: {
      decode: (bytes?: Uint8Array): string => {
        const broken = bytes === undefined ? undefined : jsonBoundsBroken(bytes, bounds)
        if (broken !== undefined) throw connectError("ResourceExhausted", broken)
        let text: string
        try {
          text = fatal.decode(bytes)
        } catch {
          throw invalidArgument(notUtf8)
        }
        if (!checksTimestamps) return text
        let json: unknown
        try {
          json = JSON.parse(text)
        } catch {
          return text // connect-es refuses malformed JSON itself
        }
        const refused = badTimestamps(input, json)
        if (refused.length === 0) return text
        throw invalidArgument(
          InvalidArgument.fromViolations(refused.map((field) => new FieldViolation({ field, description: timestampRule })))
            .message
        )
      }
    }
  } as const
}

// ---------------------------------------------------------------------------------------------
// 5. undecodableAsInternal: connect-es answers a request message it cannot decode as `internal`
//    (Connect: HTTP 500; gRPC and gRPC-Web: status 13) — garbage or truncated protobuf ("parse
//    binary: premature EOF"), an envelope flagged compressed with no `grpc-encoding` — though the
//    caller is at fault (contract §3.7 wants invalid_argument, as connect-es answers for bad JSON).
//    It decodes before any interceptor runs and its binary read options have no hook, so the
//    router's response is re-coded before it is written: the message stays, the code becomes
//    invalid_argument. Such a failure always comes before any output, so it is the first (and
//    only) chunk of the body, or the trailers as the router hands them over.
//    A Connect GET whose `message` is not base64 (with `base64=1`) is worse off: the decoder's
//    plain Error becomes "internal error", which nothing tells apart from a real defect, so that
//    request is refused before the router.
// ---------------------------------------------------------------------------------------------

const decodeFailure = /^(parse binary: |received compressed envelope, but do not know how to decompress$)/
const internal = errorTable.Internal
const recodedAs = errorTable.InvalidArgument

const percentDecoded = (value: string): string => {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}

const isUndecodable = (grpcStatus: string | null, grpcMessage: string | null): boolean =>
  grpcStatus === String(internal.grpc) && grpcMessage !== null && decodeFailure.test(percentDecoded(grpcMessage))

/** gRPC trailers (or trailers-only headers) of an undecodable request, re-coded in place. */
const recodeGrpcStatus = (fields: Headers): void => {
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

const parseJson = (bytes: Uint8Array): unknown => {
  try {
    return JSON.parse(Buffer.from(bytes).toString("utf8"))
  } catch {
    return undefined
  }
}

const jsonBytes = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8")

/** The single uncompressed envelope with `flags` that `chunk` consists of, if it is one. */
const soleEnvelope = (chunk: Uint8Array, flags: number): Uint8Array | undefined => {
  if (chunk.length < 5 || chunk[0] !== flags) return undefined
  const length = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).readUInt32BE(1)
  return 5 + length === chunk.length ? chunk.subarray(5) : undefined
}

/** gRPC-Web carries its trailers as an envelope flagged 0x80: `name: value` lines. */
const grpcWebTrailerFlag = 0x80
const recodeGrpcWebTrailer = (chunk: Uint8Array): Uint8Array | undefined => {
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

/** Connect streaming ends with an envelope flagged 0x02: `{"error": {...}}`. */
const connectEndStreamFlag = 0x02
const recodeConnectEndStream = (chunk: Uint8Array): Uint8Array | undefined => {
  const data = soleEnvelope(chunk, connectEndStreamFlag)
  const end = data === undefined ? undefined : parseJson(data)
  const error = isRecord(end) ? recodedConnectError(end.error) : undefined
  return error === undefined ? undefined : encodeEnvelope(connectEndStreamFlag, jsonBytes({ ...(end as object), error }))
}

const recodeConnectUnary = (status: number, chunk: Uint8Array): Uint8Array | undefined => {
  if (status !== internal.http) return undefined
  const error = recodedConnectError(parseJson(chunk))
  return error === undefined ? undefined : jsonBytes(error)
}

// ---------------------------------------------------------------------------------------------
// 6. overEscapedGrpcMessage: the gRPC spec percent-encodes `grpc-message` minimally (printable
//    ASCII but `%` stays as it is). connect-es escapes all that `encodeURIComponent` does, and
//    @grpc/grpc-js decodes with `decodeURI`, which leaves `%3A` and friends in place: its users
//    read "id%3A must be a UUID". Re-encoded the spec's way on gRPC answers (gRPC-Web clients
//    decode fully and are left alone).
// ---------------------------------------------------------------------------------------------

const grpcMessageEncoding = (text: string): string => {
  let out = ""
  for (const byte of Buffer.from(text, "utf8")) {
    out += byte >= 0x20 && byte <= 0x7e && byte !== 0x25
      ? String.fromCharCode(byte)
      : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`
  }
  return out
}

const reencodeGrpcMessage = (fields: Headers): void => {
  const message = fields.get("grpc-message")
  if (message !== null) fields.set("grpc-message", grpcMessageEncoding(percentDecoded(message)))
}

// ---------------------------------------------------------------------------------------------
// 7. bodilessRefusals: a request in a content type or method no protocol takes gets 415 or 405
//    with an empty body (`uResponseUnsupportedMediaType`, `uResponseMethodNotAllowed`), which
//    tells a person with curl nothing. The same status goes out with a Connect error body that
//    says what to send (and `Allow` on a 405).
// ---------------------------------------------------------------------------------------------

const acceptedContentTypes =
  "application/json or application/proto (Connect), application/connect+json or +proto (Connect streams), " +
  "application/grpc, +proto or +json (gRPC), application/grpc-web, +proto or +json (gRPC-Web)"

const bodilessRefusal = (
  handler: UniversalHandler,
  request: Request,
  status: number
): { readonly kind: FailureKind; readonly message: string; readonly headers: Record<string, string> } | undefined => {
  if (status === errorTable.UnsupportedMediaType.http) {
    const given = request.headers["content-type"]
    const message = request.method === "GET"
      ? "a Connect GET carries its message in the query: ?encoding=json&message=<JSON> (or encoding=proto&base64=1)"
      : `${given === undefined ? "no content type" : `content type "${given}" is not served here`}; send ${acceptedContentTypes}`
    return { kind: "UnsupportedMediaType", message, headers: {} }
  }
  if (status === errorTable.MethodNotAllowed.http) {
    const allow = handler.allowedMethods.join(", ")
    return { kind: "MethodNotAllowed", message: `method not allowed; use ${allow}`, headers: { allow } }
  }
  return undefined
}

/** A refusal as a Connect unary error: the table's HTTP status, `{code, message}` in JSON. */
const connectJsonRefusal = (
  request: Request,
  response: Response,
  kind: FailureKind,
  message: string,
  headers: Record<string, string> = {}
) => {
  answered(request, codeName(kind))
  const body = jsonBytes(errorBody.connect(kind, message))
  response.writeHead(errorTable[kind].http, { ...headers, "content-type": "application/json", "content-length": body.byteLength })
  response.end(body)
}

// ---------------------------------------------------------------------------------------------
// 8. unboundedBinaryFields: protobuf-es decodes every field of a binary message, however many:
//    half a million in a megabyte kept the event loop busy for over 100 ms. connect-es decodes in
//    its handler with no hook before `fromBinary`, so the body is read on its way in and a message
//    over PROTOBUF_MAX_FIELDS ends it with resource_exhausted (ProtobufFieldBound.ts).
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// The adapter.
// ---------------------------------------------------------------------------------------------

/** The pipeline's record of the call (Calls.ts), handed to handlers in their context. */
export const callKey = createContextKey<Call | undefined>(undefined)
// ---------------------------------------------------------------------------------------------

type Protocol = "grpc" | "grpc-web" | "connect-stream" | "connect"

const protocolOf = (contentType: string): Protocol => {
  if (contentType.startsWith("application/grpc-web")) return "grpc-web"
  if (contentType.startsWith("application/grpc")) return "grpc"
  if (contentType.startsWith("application/connect+")) return "connect-stream"
  return "connect"
}

/** Takes the body's first chunk; `rest` yields the whole body again, that chunk replaced if `replace` gave one. */
const firstChunk = async (body: AsyncIterable<Uint8Array>) => {
  const iterator = body[Symbol.asyncIterator]()
  const first = await iterator.next()
  return {
    first: first.done === true ? undefined : first.value,
    rest: (replace: Uint8Array | undefined): AsyncIterable<Uint8Array> => ({
      [Symbol.asyncIterator]: () => {
        let pending: IteratorResult<Uint8Array> | undefined = replace === undefined ? first : { done: false, value: replace }
        return {
          next: () => {
            if (pending === undefined) return iterator.next()
            const next = pending
            pending = undefined
            return Promise.resolve(next)
          },
          ...(iterator.throw === undefined ? {} : { throw: (error: unknown) => iterator.throw!(error) }),
          ...(iterator.return === undefined ? {} : { return: (value: unknown) => iterator.return!(value) })
        }
      }
    })
  }
}

/** A gRPC status's name in Connect's words (`0` is `ok`). */
const grpcCodeName = (status: string): string => (status === "0" ? "ok" : codeToString(Number(status)) ?? "unknown")

/** The status in a gRPC-Web trailer envelope; a message first means the call succeeded. */
const grpcWebCode = (chunk: Uint8Array | undefined): string => {
  const data = chunk === undefined ? undefined : soleEnvelope(chunk, grpcWebTrailerFlag)
  if (data === undefined) return "ok"
  const status = /grpc-status:\s*(\d+)/i.exec(Buffer.from(data).toString("latin1"))
  return status === null ? "unknown" : grpcCodeName(status[1]!)
}

const isAsyncIterable = (value: unknown): value is AsyncIterable<Uint8Array> =>
  typeof value === "object" && value !== null && Symbol.asyncIterator in value

const headersOf = (init: UniversalServerResponse["header"]): Headers => init instanceof Headers ? init : new Headers(init)

/** Corrections 5 and 6, applied to the router's answer before it is written. */
const corrected = (
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
        recodeGrpcStatus(fields)
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
      const recode = protocol === "grpc-web" ? recodeGrpcWebTrailer : recodeConnectEndStream
      return firstChunk(answer.body).then(({ first, rest }) => {
        const replaced = first === undefined ? undefined : recode(first)
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
        const recoded = first === undefined ? undefined : recodeConnectUnary(answer.status, first)
        const error = parseJson(recoded ?? first ?? new Uint8Array())
        settle(isRecord(error) && typeof error.code === "string" ? error.code : "unknown")
        if (recoded === undefined) return { ...answer, body: rest(undefined) }
        const header = new Headers(answer.header)
        header.set("content-length", String(recoded.byteLength))
        return { ...answer, status: recodedAs.http, header, body: rest(recoded) }
      })
    }
  }
}

/** What a caller sent on a Connect GET that connect-es would misread (corrections 3 and 5). */
const getRefusal = (handler: UniversalHandler, url: string): string | undefined => {
  const query = url.indexOf("?") === -1 ? "" : url.slice(url.indexOf("?") + 1)
  const params = new URLSearchParams(query)
  const encoding = params.get("encoding")
  if (!handler.allowedMethods.includes("GET") || (encoding !== "json" && encoding !== "proto")) return undefined
  if (params.get("base64") === "1") {
    try {
      base64Decode(params.get("message") ?? "")
      return undefined
    } catch {
      return "message: the query parameter is not base64 (base64=1)"
    }
  }
  const raw = encoding === "json" ? rawMessageParameter(query) : undefined
  return raw !== undefined && !isUtf8QueryValue(raw) ? `message: ${notUtf8}` : undefined
}

/** A router that registers each method on its own, with that method's JSON read options. */
const strictRouter = (router: ConnectRouter, bounds: JsonBounds): ConnectRouter => {
  const strict: ConnectRouter = {
    handlers: router.handlers,
    service: (service: DescService, implementation, options) => {
      const spec = createServiceImplSpec(service, implementation)
      for (const method of service.methods) {
        router.rpc(method, spec.methods[method.localName]!.impl as never, {
          ...options,
          jsonOptions: jsonOptionsFor(method.input, bounds)
        })
      }
      return strict
    },
    rpc: (method, implementation, options) => {
      router.rpc(method, implementation, { ...options, jsonOptions: jsonOptionsFor(method.input, bounds) })
      return strict
    }
  }
  return strict
}

export interface ConnectAdapterOptions extends ConnectRouterOptions {
  /** JSON_MAX_DEPTH, JSON_MAX_VALUES: held by every JSON message, before it is parsed; unbounded if unset. */
  readonly jsonBounds?: JsonBounds
  /** PROTOBUF_MAX_FIELDS: held by every binary request message, before it is decoded (ProtobufFieldBound); unbounded if unset. */
  readonly protobufMaxFields?: number
  readonly routes: (router: ConnectRouter) => void
  /** Answers a path no service routes. */
  readonly fallback: RequestHandler
  /** Logs a failure the adapter could not answer as a call's own (a write error, a throw). */
  readonly logFailure: (request: Request, message: string, error: unknown) => void
}

/** connect-node's `connectNodeAdapter`, with the corrections above. */
export const connectNodeAdapter = (options: ConnectAdapterOptions): RequestHandler => {
  const acceptCompression = options.acceptCompression ?? [compressionGzip, compressionBrotli]
  const router = createConnectRouter({ ...options, acceptCompression })
  options.routes(strictRouter(router, options.jsonBounds ?? unboundedJson))
  const maxFields = options.protobufMaxFields ?? Number.POSITIVE_INFINITY
  // connect-es's default when none is given.
  const readMaxBytes = options.readMaxBytes ?? 0xffffffff
  const handlers = new Map(router.handlers.map((handler) => [handler.requestPath, handler]))

  const tooManyFields = () =>
connectError("ResourceExhausted", tooManyFieldsMessage(maxFields))

  /** The request with its body held to PROTOBUF_MAX_FIELDS, when it is binary protobuf (correction 8). */
  const fieldBounded = (handler: UniversalHandler, protocol: Protocol, universal: UniversalServerRequest): UniversalServerRequest => {
    const contentType = (universal.header.get("content-type") ?? "").split(";", 1)[0]!.trim().toLowerCase()
    const body = universal.body
    if (
      maxFields === Number.POSITIVE_INFINITY || universal.method !== "POST" || !binaryTypes.has(contentType) ||
      !isAsyncIterable(body)
    ) return universal
    const encoding = universal.header.get(encodingHeader[protocol])
    const bound: FieldBound = {
      message: handler.method.input,
      maxFields,
      compression: acceptCompression.find((compression) => compression.name === encoding),
      readMaxBytes,
      refusal: tooManyFields
    }
    const compressed = encoding !== null && encoding !== "identity"
    return {
      ...universal,
      body: protocol === "connect" ? unaryBodyBound(body, compressed, bound) : envelopedBodyBound(body, bound)
    }
  }

  const serve = (handler: UniversalHandler, request: Request, response: Response) => {
    const url = request.url ?? "/"
    if (request.method === "GET") {
      const refusal = getRefusal(handler, url)
      if (refusal !== undefined) return refuse(request, response, { kind: "InvalidArgument", message: refusal })
    }
    const universal = universalRequestFromNodeRequest(
      request,
      response,
      undefined,
      createContextValues().set(callKey, callOf(request))
    )
    dropTimerOverflowDeadlines(universal.header)
    const protocol = protocolOf((request.headers["content-type"] ?? "").toLowerCase())
    handler(fieldBounded(handler, protocol, universal))
      .then((answer) => {
        const refusal = answer.body === undefined ? bodilessRefusal(handler, request, answer.status) : undefined
        if (refusal !== undefined) return connectJsonRefusal(request, response, refusal.kind, refusal.message, refusal.headers)
        const fixed = corrected(handler.method, protocol, answer, (code) => answered(request, code))
        return fixed instanceof Promise
          ? fixed.then((each) => universalResponseToNodeResponse(each, response))
          : universalResponseToNodeResponse(fixed, response)
      })
      .catch((reason: unknown) => {
        // As upstream: a call the client abandoned is not worth a line.
        if (ConnectError.from(reason).code === Code.Aborted) return
        options.logFailure(request, `${handler.service.typeName}/${handler.method.name} failed`, reason)
      })
  }

  return (request, response) => {
    const handler = handlers.get((request.url ?? "").split("?", 2)[0]!)
    if (handler === undefined) return options.fallback(request, response)
    // A Connect JSON answer whatever the protocol: without a host there is no telling what the caller speaks.
    if (hostless(request)) {
      return connectJsonRefusal(request, response, "InvalidArgument", "the request names no host (a Host header or :authority is required)")
    }
    try {
      serve(handler, request, response)
    } catch (error) {
      options.logFailure(request, `Connect handler for ${request.method} ${request.url} threw`, error)
      if (response.headersSent) return void response.end()
      refuse(request, response, { kind: "Internal", message: "internal error" })
    }
  }
}
