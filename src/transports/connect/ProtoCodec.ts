import { create, type DescMessage, type DescMethodUnary, isMessage, type MessageShape } from "@bufbuild/protobuf"
import { type Timestamp as TimestampMessage, TimestampSchema } from "@bufbuild/protobuf/wkt"
import type { HandlerContext } from "@connectrpc/connect"
import { Effect } from "effect"
import type { DomainError } from "../../domain/Errors.js"
import { fromSecondsNanos, type Timestamp, toSecondsNanos } from "../../domain/Timestamp.js"
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

/**
 * One direction of the mapping: the name a field is read under, the one it is written under, a
 * Timestamp's conversion, and what a message's fields are written into (a record, or the message
 * itself, so that no initialiser is built to be copied into one).
 */
interface Direction {
  readonly from: "localName" | "jsonName"
  readonly to: "localName" | "jsonName"
  readonly timestamp: (value: unknown) => unknown
  readonly into: (desc: DescMessage) => Record<string, unknown>
  /** Each message's walk, made once from its descriptor. */
  readonly walks: WeakMap<DescMessage, Walk>
}

type Walk = (value: object) => Record<string, unknown>

/** How one set field is carried: its value as it is, or converted. */
interface Step {
  readonly from: string
  readonly to: string
  readonly convert: ((value: unknown) => unknown) | undefined
}

/** Message `desc`'s walk in `direction`: each set field renamed, Timestamps converted, nested messages walked. */
const walkOf = (direction: Direction, desc: DescMessage): Walk => {
  const made = direction.walks.get(desc)
  if (made !== undefined) return made
  const steps: Array<Step> = desc.fields.map((field): Step => {
    const names = { from: field[direction.from], to: field[direction.to] }
    if (field.fieldKind === "message") {
      if (field.message.typeName === timestampType) return { ...names, convert: direction.timestamp }
      return { ...names, convert: (each) => mappedIfObject(direction, field.message, each) }
    }
    if (field.fieldKind === "list" && field.listKind === "message") {
      const item = (each: unknown) => mappedIfObject(direction, field.message, each)
      return { ...names, convert: (each) => (Array.isArray(each) ? each.map(item) : each) }
    }
    return { ...names, convert: undefined }
  })
  const walk: Walk = (value) => {
    const fields = direction.into(desc)
    for (const step of steps) {
      const each = (value as Record<string, unknown>)[step.from]
      if (each != null) fields[step.to] = step.convert === undefined ? each : step.convert(each)
    }
    return fields
  }
  direction.walks.set(desc, walk)
  return walk
}

/** A message field's value: an object (a message, or a domain value) is walked; anything else is left as it is. */
const mappedIfObject = (direction: Direction, desc: DescMessage, value: unknown): unknown =>
  typeof value === "object" && value !== null ? walkOf(direction, desc)(value) : value

const toPayload: Direction = {
  from: "localName",
  to: "jsonName",
  timestamp: (value) => (isMessage(value, TimestampSchema) ? timestampText(value) : value),
  into: () => ({}),
  walks: new WeakMap()
}

/** A domain Timestamp is a branded string (CanonicalTimestamp): the brand is not checked at run time. */
const isTimestamp = (value: unknown): value is Timestamp => typeof value === "string"

const toInit: Direction = {
  from: "jsonName",
  to: "localName",
  timestamp: (value) => (isTimestamp(value) ? timestampMessage(value) : value),
  into: (desc) => create(desc),
  walks: new WeakMap()
}

/**
 * A request message as its operation's payload, in the payload's wire shape: Timestamps as RFC 3339
 * text, and unset message fields left out, so that the domain reports them as missing. proto3
 * cannot tell 0 and "" from absent: the domain reads them as "not given".
 */
export const fromMessage = (desc: DescMessage, message: object): Record<string, unknown> => walkOf(toPayload, desc)(message)

/** Message `desc` from a domain value (or a record of them) under the same names, its fields written into the message itself. */
export const toMessage = <Desc extends DescMessage>(desc: Desc, value: object): MessageShape<Desc> =>
  // `create` hands back the message the walk made: it is one of `desc` already.
  create(desc, walkOf(toInit, desc)(value) as never)

/**
 * A unary method's connect-node handler over an operation: the request message as the payload, the
 * reply as the response message — the reply itself, or under `replyField` (`{org: ...}`).
 */
export const unary = <R>(call: EffectCall<R>) =>
<I extends DescMessage, O extends DescMessage>(
  method: DescMethodUnary<I, O>,
  run: (payload: unknown) => Effect.Effect<object, DomainError, R>,
  replyField?: string
): ((request: MessageShape<I>, context: HandlerContext) => Promise<MessageShape<O>>) => {
  // Made once per method, not per call.
  const response = (reply: object): MessageShape<O> =>
    toMessage(method.output, replyField === undefined ? reply : { [replyField]: reply })
  return (request, context) => call(context, Effect.map(run(fromMessage(method.input, request)), response))
}
