import { Code, ConnectError } from "@connectrpc/connect"
import { type compressionNegotiate, envelopeDecompress, type MethodSerializationLookup } from "@connectrpc/connect/protocol"
import {
  Health,
  type HealthCheckRequest,
  type HealthCheckRequestSchema,
  type HealthCheckResponseSchema
} from "../../gen/grpc/health/v1/health_pb.js"
import { overMaxBodyBytes } from "../limits/BoundedBody.js"
import type { FailureKind } from "../ErrorTable.js"
import type { Form } from "./HealthWatchWire.js"
import { holdsMoreFields, tooManyFieldsMessage } from "../limits/ProtobufFieldBound.js"

/*
 * The one message of a health Watch request, decoded as connect-es decodes a server-streaming
 * call's input: compression (`envelopeDecompress`) and the message's decoding
 * (`createMethodSerializationLookup`, with the strict JSON read options of ConnectNodeAdapter.ts).
 */

/** A request that cannot be watched: the failure to answer it with. */
export class Refused {
  constructor(readonly kind: FailureKind, readonly message: string) {}
}

/** A failure of connect-es's decoding, as the error table's kind (undecodable input is the caller's fault: correction 5). */
const refusedBy = (error: unknown): Refused => {
  const connect = ConnectError.from(error)
  return new Refused(connect.code === Code.ResourceExhausted ? "ResourceExhausted" : "InvalidArgument", connect.rawMessage)
}

/** The bounds a request's message is read within (HealthWatchOptions). */
export interface RequestBounds {
  readonly readMaxBytes: number
  /** PROTOBUF_MAX_FIELDS: a binary request holding more is refused before it is decoded. */
  readonly maxFields: number
}

/** The request's one message, read as connect-es reads a server-streaming call's input. */
export const requestMessage = async (
  body: Buffer,
  form: Form,
  compression: ReturnType<typeof compressionNegotiate>["request"],
  options: RequestBounds,
  serialization: MethodSerializationLookup<typeof HealthCheckRequestSchema, typeof HealthCheckResponseSchema>
): Promise<HealthCheckRequest | Refused> => {
  const messages: Array<Uint8Array> = []
  let offset = 0
  while (offset < body.length) {
    if (body.length - offset < 5) return new Refused("InvalidArgument", "protocol error: incomplete envelope")
    const flags = body[offset]!
    const length = body.readUInt32BE(offset + 1)
    if (length > options.readMaxBytes) {
      return new Refused("ResourceExhausted", overMaxBodyBytes(options.readMaxBytes, "request message"))
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
  const [message, ...extra] = messages
  if (message === undefined) return new Refused("InvalidArgument", "protocol error: missing input message for server_streaming method")
  if (extra.length > 0) return new Refused("InvalidArgument", "protocol error: received extra input message for server_streaming method")
  if (form.binary && holdsMoreFields(Health.method.watch.input, message, options.maxFields)) {
    return new Refused("ResourceExhausted", tooManyFieldsMessage(options.maxFields))
  }
  try {
    return serialization.getI(form.binary).parse(message)
  } catch (error) {
    return refusedBy(error)
  }
}
