import type { compressionNegotiate, createMethodSerializationLookup, MethodSerializationLookup } from "@connectrpc/connect/protocol"
import type {
  HealthCheckRequest,
  HealthCheckRequestSchema,
  HealthCheckResponseSchema
} from "../../gen/grpc/health/v1/health_pb.js"
import { connectError } from "../ErrorTable.js"
import { overMaxBodyBytes } from "../limits/BoundedBody.js"
import type { Request, RequestHandler, Response } from "../http/RequestHandler.js"
import { refuse } from "../http/Refusal.js"
import type { HealthListener, HealthSubscription } from "./HealthSubscription.js"
import type { HealthWatchesShape } from "./HealthWatches.js"
import { Refused, requestMessage } from "./HealthWatchRequest.js"
import { endStream, type Form, protocols, replies } from "./HealthWatchWire.js"

/*
 * One open health Watch stream, from its request's body to its end.
 *
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

export interface Port {
  readonly options: HealthWatchOptions
  readonly serialization: MethodSerializationLookup<typeof HealthCheckRequestSchema, typeof HealthCheckResponseSchema>
}

/**
 * Opens a stream on an admitted request: it reads the request's body, then watches, until it ends
 * or `deadlineMillis` (if given) passes.
 */
export const openWatchStream = (
  request: Request,
  response: Response,
  form: Form,
  compression: ReturnType<typeof compressionNegotiate>["request"],
  port: Port,
  deadlineMillis: number | undefined
) => {
  const stream = new WatchStream(request, response, form, compression, port)
  streams.set(request, stream)
  response.on("close", onClose)
  if (deadlineMillis !== undefined) stream.expireAfter(deadlineMillis)
  // The request is one small message: read whole, within the body limit, before anything is sent.
  request.on("data", onData)
  request.on("end", onEnd)
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
    this.end(new Refused("ResourceExhausted", overMaxBodyBytes(this.options.readMaxBytes, "request message")))
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
    const response: NodeJS.WritableStream = this.response
    response.write(reply)
  }
}
