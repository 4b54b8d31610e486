import { create, type DescMessage, type DescMethodUnary, isMessage, type MessageShape } from "@bufbuild/protobuf"
import { type Timestamp as TimestampMessage, TimestampSchema } from "@bufbuild/protobuf/wkt"
import type { HandlerContext } from "@connectrpc/connect"
import { Effect, Schema } from "effect"
import type { DomainError } from "../../domain/Errors.js"
import { CanonicalTimestamp, fromSecondsNanos, type Timestamp, toSecondsNanos } from "../../domain/Timestamp.js"
import type { EffectCall } from "./EffectCall.js"

/**
 * Protobuf <-> domain, one generic mapping walked over the generated descriptors: a field is read
 * and written under its JSON name, the name the domain's schemas use (the contract's JSON form), so
 * no message is mapped by hand. test/transports/proto-mapping.test.ts walks every message of every
 * service against the operations' schemas: a field on one side only fails there.
 */

const timestampType = "google.protobuf.Timestamp"

/** An out-of-range Timestamp is passed on as text the domain refuses with its usual message. */
const timestampText = (ts: TimestampMessage): string =>
  fromSecondsNanos(ts.seconds, ts.nanos) ?? `${ts.seconds}s ${ts.nanos}ns`

const timestampMessage = (t: Timestamp): TimestampMessage => create(TimestampSchema, toSecondsNanos(t))

/** One direction of the mapping: the name a field is read under, the one it is written under, and a Timestamp's conversion. */
interface Direction {
  readonly from: "localName" | "jsonName"
  readonly to: "localName" | "jsonName"
  readonly timestamp: (value: unknown) => unknown
}

/** Walks message `desc` over `value`, renaming each set field and converting Timestamps, nested messages included. */
const mapped = (direction: Direction, desc: DescMessage, value: object): Record<string, unknown> => {
  const fields: Record<string, unknown> = {}
  for (const field of desc.fields) {
    const each = (value as Record<string, unknown>)[field[direction.from]]
    if (each === undefined) continue
    if (field.fieldKind === "message") {
      fields[field[direction.to]] = field.message.typeName === timestampType
        ? direction.timestamp(each)
        : mappedIfObject(direction, field.message, each)
    } else if (field.fieldKind === "list" && field.listKind === "message" && Array.isArray(each)) {
      fields[field[direction.to]] = each.map((item: unknown) => mappedIfObject(direction, field.message, item))
    } else {
      fields[field[direction.to]] = each
    }
  }
  return fields
}

/** A message field's value: an object (a message, or a domain value) is walked; anything else is left as it is. */
const mappedIfObject = (direction: Direction, desc: DescMessage, value: unknown): unknown =>
  typeof value === "object" && value !== null ? mapped(direction, desc, value) : value

const toPayload: Direction = {
  from: "localName",
  to: "jsonName",
  timestamp: (value) => (isMessage(value, TimestampSchema) ? timestampText(value) : value)
}

const isTimestamp = Schema.is(CanonicalTimestamp)
const toInit: Direction = {
  from: "jsonName",
  to: "localName",
  timestamp: (value) => (isTimestamp(value) ? timestampMessage(value) : value)
}

/**
 * A request message as its operation's payload, in the payload's wire shape: Timestamps as RFC 3339
 * text, and unset message fields left out, so that the domain reports them as missing. proto3
 * cannot tell 0 and "" from absent: the domain reads them as "not given".
 */
export const fromMessage = (desc: DescMessage, message: object): Record<string, unknown> => mapped(toPayload, desc, message)

/** Message `desc` from a domain value (or a record of them) under the same names. */
export const toMessage = <Desc extends DescMessage>(desc: Desc, value: object): MessageShape<Desc> =>
  create(desc, mapped(toInit, desc, value) as never)

/**
 * A unary method's connect-node handler over an operation: the request message as the payload, the
 * reply as the response message — the reply itself, or under `replyField` (`{org: ...}`).
 */
export const unary = <R>(call: EffectCall<R>) =>
<I extends DescMessage, O extends DescMessage>(
  method: DescMethodUnary<I, O>,
  run: (payload: unknown) => Effect.Effect<object, DomainError, R>,
  replyField?: string
) =>
(request: MessageShape<I>, context: HandlerContext): Promise<MessageShape<O>> =>
  call(
    context,
    Effect.map(run(fromMessage(method.input, request)), (reply) =>
      toMessage(method.output, replyField === undefined ? reply : { [replyField]: reply }))
  )
