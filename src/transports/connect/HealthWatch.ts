import { create, toBinary, toJsonString } from "@bufbuild/protobuf"
import { Code, ConnectError } from "@connectrpc/connect"
import { compressionBrotli, compressionGzip } from "@connectrpc/connect-node"
import {
  compressionNegotiate,
  createMethodSerializationLookup,
  encodeEnvelope,
  envelopeDecompress
} from "@connectrpc/connect/protocol"
import * as connectProtocol from "@connectrpc/connect/protocol-connect"
import * as grpcProtocol from "@connectrpc/connect/protocol-grpc"
import * as grpcWebProtocol from "@connectrpc/connect/protocol-grpc-web"
import {
  Health,
  type HealthCheckRequest,
  HealthCheckResponse_ServingStatus as Status,
  HealthCheckResponseSchema
} from "../../gen/grpc/health/v1/health_pb.js"
import { connectError, type FailureKind } from "../ErrorTable.js"
import type { Request, RequestHandler, Response } from "../http/PortListener.js"
import { refuse } from "../http/Refusal.js"
import type { HealthListener, HealthSubscription } from "./HealthSubscription.js"
import type { HealthWatchesShape } from "./HealthWatches.js"
import { holdsMoreFields, tooManyFieldsMessage } from "./ProtobufFieldBound.js"

/*
 * gRPC health Watch, served on Node's request and response rather than through connect-node.
 *
 * Health is open to anyone and a Watch stream stays open as long as its client likes, so what one
 * open stream costs is what an anonymous caller can multiply. Through connect-node a stream that
 * does nothing but wait holds its whole pipeline: a dozen suspended async generators, three
 * AbortControllers, the universal request and response, ~36 KB of heap (measured with a Watch
 * that awaited nothing of Effect). Node's own HTTP/2 stream and its compatibility request and
 * response are ~5 KB more. Here a waiting stream holds one small object, listed in the port's
 * HealthSubscription, and the replies are the six possible messages, encoded once.
 *
 * The wire forms are connect-es's own, from its public protocol modules: the content types
 * (`parseContentType`), compression (`compressionNegotiate`, `envelopeDecompress`), deadlines
 * (`parseTimeout`), the request message's decoding (`createMethodSerializationLookup`, with the
 * strict JSON read options of ConnectNodeAdapter.ts), and each protocol's ending (`setTrailerStatus`,
 * `trailerSerialize`, `endStreamToJson`). A request this does not take (a method other than POST,
 * a content type no streaming protocol takes, an unknown compression) goes to connect-node, which
 * refuses it in its own words before running anything.
 */

type Protocol = "grpc" | "grpc-web" | "connect"

interface Form {
  readonly protocol: Protocol
  readonly binary: boolean
}

/** The streaming protocol and codec of a content type, as connect-es's handlers read it. */
const formOf = (contentType: string | undefined): Form | undefined => {
  const grpc = grpcProtocol.parseContentType(contentType ?? null)
  if (grpc !== undefined) return { protocol: "grpc", binary: grpc.binary }
  const grpcWeb = grpcWebProtocol.parseContentType(contentType ?? null)
  // connect-es refuses grpc-web-text (415).
  if (grpcWeb !== undefined) return grpcWeb.text ? undefined : { protocol: "grpc-web", binary: grpcWeb.binary }
  const connect = connectProtocol.parseContentType(contentType ?? null)
  return connect?.stream === true ? { protocol: "connect", binary: connect.binary } : undefined
}

/** Each protocol's header names and response content types. */
const protocols = {
  "grpc": {
    encoding: grpcProtocol.headerEncoding,
    acceptEncoding: grpcProtocol.headerAcceptEncoding,
    timeout: grpcProtocol.headerTimeout,
    parseTimeout: grpcProtocol.parseTimeout,
    contentType: { binary: grpcProtocol.contentTypeProto, json: grpcProtocol.contentTypeJson }
  },
  "grpc-web": {
    encoding: grpcProtocol.headerEncoding,
    acceptEncoding: grpcProtocol.headerAcceptEncoding,
    timeout: grpcProtocol.headerTimeout,
    parseTimeout: grpcProtocol.parseTimeout,
    contentType: { binary: grpcWebProtocol.contentTypeProto, json: grpcWebProtocol.contentTypeJson }
  },
  "connect": {
    encoding: connectProtocol.headerStreamEncoding,
    acceptEncoding: connectProtocol.headerStreamAcceptEncoding,
    timeout: connectProtocol.headerTimeout,
    parseTimeout: connectProtocol.parseTimeout,
    contentType: { binary: connectProtocol.contentTypeStreamProto, json: connectProtocol.contentTypeStreamJson }
  }
} as const

/** What connect-node accepts (ConnectNodeAdapter.ts), so that a compressed request reads the same here. */
const acceptCompression = [compressionGzip, compressionBrotli]

/** The longest delay a Node timer takes; a longer deadline is dropped, as ConnectNodeAdapter.ts's correction 2 does. */
const maxTimerMillis = 2_147_483_647

/** Every reply a Watch stream can send, enveloped, per codec: encoded once for all streams. */
const replies = (() => {
  const encode = (status: Status, binary: boolean) => {
    const message = create(HealthCheckResponseSchema, { status })
    const bytes = binary ? toBinary(HealthCheckResponseSchema, message) : new TextEncoder().encode(toJsonString(HealthCheckResponseSchema, message))
    return Buffer.from(encodeEnvelope(0, bytes))
  }
  const of = (binary: boolean) => ({
    serving: encode(Status.SERVING, binary),
    notServing: encode(Status.NOT_SERVING, binary),
    unknown: encode(Status.SERVICE_UNKNOWN, binary)
  })
  return { binary: of(true), json: of(false) }
})()

const encoder = new TextEncoder()

/** The end of a stream whose response has begun, in its protocol's form: OK, or `error`. */
const endStream = (response: Response, protocol: Protocol, error: ConnectError | undefined) => {
  switch (protocol) {
    case "grpc":
      response.addTrailers(Object.fromEntries(grpcProtocol.setTrailerStatus(new Headers(), error)))
      return response.end()
    case "grpc-web":
      return response.end(
        encodeEnvelope(grpcWebProtocol.trailerFlag, grpcWebProtocol.trailerSerialize(grpcProtocol.setTrailerStatus(new Headers(), error)))
      )
    case "connect":
      return response.end(
        encodeEnvelope(connectProtocol.endStreamFlag, encoder.encode(JSON.stringify(connectProtocol.endStreamToJson(new Headers(), error, undefined))))
      )
  }
}

/** A request that cannot be watched: the failure to answer it with. */
class Refused {
  constructor(readonly kind: FailureKind, readonly message: string) {}
}

/** A failure of connect-es's decoding, as the error table's kind (undecodable input is the caller's fault: correction 5). */
const refusedBy = (error: unknown): Refused => {
  const connect = ConnectError.from(error)
  return new Refused(connect.code === Code.ResourceExhausted ? "ResourceExhausted" : "InvalidArgument", connect.rawMessage)
}

const header = (request: Request, name: string): string | null => {
  const value = request.headers[name.toLowerCase()]
  return typeof value === "string" ? value : null
}

export interface HealthWatchOptions {
  /** Whether a service name is known here ("" is the port as a whole). */
  readonly known: (service: string) => boolean
  readonly subscription: HealthSubscription
  readonly watches: HealthWatchesShape
  readonly readMaxBytes: number
  /** PROTOBUF_MAX_FIELDS: a binary request holding more is refused before it is decoded. */
  readonly maxFields: number
  /** The strict JSON read options of the request message (ConnectNodeAdapter.ts). */
  readonly jsonOptions: Parameters<typeof createMethodSerializationLookup>[2]
  /** connect-node: answers the requests this does not take. */
  readonly fallback: RequestHandler
}

/** The request's one message, read as connect-es reads a server-streaming call's input. */
const requestMessage = async (
  body: Buffer,
  form: Form,
  compression: ReturnType<typeof compressionNegotiate>["request"],
  options: HealthWatchOptions,
  serialization: ReturnType<typeof createMethodSerializationLookup>
): Promise<HealthCheckRequest | Refused> => {
  const messages: Array<Uint8Array> = []
  let offset = 0
  while (offset < body.length) {
    if (body.length - offset < 5) return new Refused("InvalidArgument", "protocol error: incomplete envelope")
    const flags = body[offset]!
    const length = body.readUInt32BE(offset + 1)
    if (length > options.readMaxBytes) {
      return new Refused("ResourceExhausted", `message size ${length} is larger than configured readMaxBytes ${options.readMaxBytes}`)
    }
    if (offset + 5 + length > body.length) {
      return new Refused("InvalidArgument", `protocol error: promised ${length} bytes, received ${body.length - offset - 5}`)
    }
    if ((flags & ~1) !== 0) return new Refused("InvalidArgument", `protocol error: unexpected envelope flags ${flags}`)
    try {
      const data = body.subarray(offset + 5, offset + 5 + length)
      messages.push((await envelopeDecompress({ flags, data }, compression, options.readMaxBytes)).data)
    } catch (error) {
      return refusedBy(error)
    }
    offset += 5 + length
  }
  // connect-es says `unimplemented` for these; it is the caller's request that is wrong.
  if (messages.length === 0) return new Refused("InvalidArgument", "protocol error: missing input message for server_streaming method")
  if (messages.length > 1) return new Refused("InvalidArgument", "protocol error: received extra input message for server_streaming method")
  if (form.binary && holdsMoreFields(Health.method.watch.input, messages[0]!, options.maxFields)) {
    return new Refused("ResourceExhausted", tooManyFieldsMessage(options.maxFields))
  }
  try {
    return serialization.getI(form.binary).parse(messages[0]!) as HealthCheckRequest
  } catch (error) {
    return refusedBy(error)
  }
}

/**
 * `grpc.health.v1.Health/Watch` in gRPC, gRPC-Web and Connect streaming, binary and JSON: the
 * state of the port (or of a service on it) now, then at every change, until the client goes
 * away or its deadline passes; SERVICE_UNKNOWN and the end for a service not served here. At
 * most `watches.max` streams in the process: one more is refused RESOURCE_EXHAUSTED before its
 * body is read. (Per connection, HTTP/2 caps streams at MAX_STREAMS_PER_CONNECTION; an HTTP/1.1
 * connection carries one.)
 */
export const healthWatch = (options: HealthWatchOptions): RequestHandler => {
  const port: Port = {
    options,
    serialization: createMethodSerializationLookup(Health.method.watch, undefined, options.jsonOptions, {
      readMaxBytes: options.readMaxBytes,
      writeMaxBytes: 0xffffffff
    })
  }

  return (request, response) => {
    const form = request.method === "POST" ? formOf(request.headers["content-type"]) : undefined
    if (form === undefined) return options.fallback(request, response)
    const protocol = protocols[form.protocol]
    const compression = compressionNegotiate(
      acceptCompression,
      header(request, protocol.encoding),
      header(request, protocol.acceptEncoding),
      protocol.acceptEncoding
    )
    if (compression.error !== undefined) return options.fallback(request, response)

    if (!options.watches.admit()) {
      return refuse(request, response, {
        kind: "ResourceExhausted",
        message: `too many health Watch streams open in this process (MAX_HEALTH_WATCHES=${options.watches.max}); use Check, or watch again later`
      })
    }
    const timeout = protocol.parseTimeout(header(request, protocol.timeout), Number.MAX_SAFE_INTEGER)
    if (timeout.error !== undefined) {
      options.watches.leave()
      return refuse(request, response, { kind: "InvalidArgument", message: timeout.error.rawMessage })
    }
    const stream = new WatchStream(request, response, form, compression.request, port)
    streams.set(request, stream)
    response.on("close", onClose)
    if (timeout.timeoutMs !== undefined && timeout.timeoutMs <= maxTimerMillis) stream.expireAfter(timeout.timeoutMs)
    // The request is one small message: read whole, within the body limit, before anything is sent.
    request.on("data", onData)
    request.on("end", onEnd)
  }
}

/*
 * What an open stream holds is what 10,000 of them cost: one object, found from Node's request
 * (the response's `req`) through `streams`, and listeners that are the same three functions for every stream
 * (no closure per stream, no Effect fiber, no promise once the request is read).
 */

const streams = new WeakMap<object, WatchStream>()

function onData(this: Request, chunk: Buffer) {
  streams.get(this)?.received(chunk)
}

function onEnd(this: Request) {
  streams.get(this)?.read()
}

function onClose(this: Response) {
  streams.get(this.req)?.finish()
}

/** What the streams of one port share. */
interface Port {
  readonly options: HealthWatchOptions
  readonly serialization: ReturnType<typeof createMethodSerializationLookup>
}

class WatchStream implements HealthListener {
  over = false
  private chunks: Array<Buffer> | undefined = []
  private size = 0
  private deadline: NodeJS.Timeout | undefined = undefined
  private watching = false

  constructor(
    private readonly request: Request,
    private readonly response: Response,
    private readonly form: Form,
    private readonly compression: ReturnType<typeof compressionNegotiate>["request"],
    private readonly port: Port
  ) {}

  private get options() {
    return this.port.options
  }

  expireAfter(millis: number) {
    this.deadline = setTimeout(() => this.end(new Refused("DeadlineExceeded", "the operation timed out")), millis)
  }

  received(chunk: Buffer) {
    if (this.chunks === undefined) return
    this.size += chunk.length
    // One envelope of the largest size allowed, and the header of a second (which is refused).
    if (this.size <= this.options.readMaxBytes + 10) return void this.chunks.push(chunk)
    this.end(new Refused("ResourceExhausted", `message size is larger than configured readMaxBytes ${this.options.readMaxBytes}`))
  }

  /** The request has arrived in full: its message, then the stream begins (or is refused). */
  read() {
    if (this.over || this.chunks === undefined) return
    const body = Buffer.concat(this.chunks)
    this.chunks = undefined
    this.request.off("data", onData)
    this.request.off("end", onEnd)
    requestMessage(body, this.form, this.compression, this.options, this.port.serialization)
      .then((message) => this.begin(message))
      .catch(() => this.end(new Refused("Internal", "internal error")))
  }

  begin(message: HealthCheckRequest | Refused) {
    if (this.over) return
    if (message instanceof Refused) return this.end(message)
    if (!this.options.known(message.service)) {
      this.send(this.replies.unknown)
      return this.end()
    }
    this.watching = true
    this.options.subscription.watch(this)
  }

  told(ready: boolean) {
    this.send(ready ? this.replies.serving : this.replies.notServing)
  }

  /** The stream is over (answered, or closed by either side): everything it held is given back. */
  finish() {
    if (this.over) return
    this.over = true
    this.chunks = undefined
    clearTimeout(this.deadline)
    this.request.off("data", onData)
    this.request.off("end", onEnd)
    if (this.watching) this.options.subscription.unwatch(this)
    this.options.watches.leave()
  }

  /** Ends the stream: OK, or with `refused` in the protocol's form. */
  end(refused?: Refused) {
    if (this.over) return
    this.finish()
    if (refused !== undefined && !this.response.headersSent) return refuse(this.request, this.response, refused)
    this.sendHeaders()
    endStream(this.response, this.form.protocol, refused === undefined ? undefined : connectError(refused.kind, refused.message))
  }

  private get replies() {
    return this.form.binary ? replies.binary : replies.json
  }

  private sendHeaders() {
    if (this.response.headersSent) return
    const types = protocols[this.form.protocol].contentType
    this.response.writeHead(200, { "content-type": this.form.binary ? types.binary : types.json })
  }

  private send(reply: Buffer) {
    this.sendHeaders()
    // Both Node responses are writable streams; their `write` overloads do not unify.
    ;(this.response as NodeJS.WritableStream).write(reply)
  }
}
