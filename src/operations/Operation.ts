import type * as Rpc from "@effect/rpc/Rpc"
import type * as RpcGroup from "@effect/rpc/RpcGroup"
import { Cause, Context, Effect, Exit, FiberRef, Layer, Option, Schema } from "effect"
import type { InvalidArgument } from "../domain/Errors.js"
import { validate } from "../domain/Validation.js"
import type { OperationHandlers } from "./OperationHandlers.js"

/** One operation of a table, called from any style: input as the wire gave it -> its reply. */
export type Operation<Rpcs extends Rpc.Any, Tag extends Rpcs["_tag"]> = (
  input: unknown
) => Effect.Effect<
  Rpc.Success<Rpc.ExtractTag<Rpcs, Tag>>,
  Rpc.Error<Rpc.ExtractTag<Rpcs, Tag>> | InvalidArgument,
  OperationHandlers<Rpcs>
>

/** A handler that takes the wire shape, decodes it with the domain's schema, then does `run`. */
export const validated = <A, I, B, E, R>(domain: Schema.Schema<A, I>, run: (value: A) => Effect.Effect<B, E, R>) => {
  const decode = validate(domain)
  return (payload: I): Effect.Effect<B, E | InvalidArgument, R> => Effect.flatMap(decode(payload), run)
}

/** @effect/rpc's handlers of a table (what its `toLayer` takes), needing nothing more from the context. */
export type RpcHandlers<Rpcs extends Rpc.Any> = { readonly [Current in Rpcs as Current["_tag"]]: Rpc.ToHandlerFn<Current, never> }

const handlerTags = new WeakMap<object, Context.Tag<unknown, unknown>>()

/** The context entry that holds a table's handlers: one per table. */
export const handlersOf = <Rpcs extends Rpc.Any>(
  table: RpcGroup.RpcGroup<Rpcs>
): Context.Tag<OperationHandlers<Rpcs>, OperationHandlers<Rpcs>> => {
  let tag = handlerTags.get(table)
  if (tag === undefined) {
    tag = Context.GenericTag<unknown>(`OperationHandlers(${[...table.requests.keys()].join(",")})`)
    handlerTags.set(table, tag)
  }
  return tag as Context.Tag<OperationHandlers<Rpcs>, OperationHandlers<Rpcs>>
}

/** A table's layer from its handlers: the record every style calls (`operation`; `/rpc` too). */
export const operationsLayer = <Rpcs extends Rpc.Any, E, R>(
  table: RpcGroup.RpcGroup<Rpcs>,
  build: Effect.Effect<OperationHandlers<Rpcs>, E, R>
): Layer.Layer<OperationHandlers<Rpcs>, E, R> => Layer.effect(handlersOf(table), build)

/**
 * Where the edge hears which operation a call ran and how it ended — `"ok"`, the failure's tag
 * (`NotFound`, ...) or `"Internal"` for a defect — for its access log and metrics. Unset outside
 * a call; one request may run several operations (GraphQL), and a failure outlives a success.
 */
export interface CallNote {
  /** The call's `x-request-id`: the process's loggers put it on every line written during the call. */
  readonly requestId: string
  operation: string | undefined
  outcome: string | undefined
  /** Whether the call is traced: then each operation it runs gets a span of its own. */
  readonly traced: boolean
}

export const CurrentCallNote = FiberRef.unsafeMake<CallNote | undefined>(undefined)

const outcomeOf = (exit: Exit.Exit<unknown, unknown>): string =>
  Exit.isSuccess(exit)
    ? "ok"
    : Option.match(Cause.failureOption(exit.cause), {
      onNone: () => (Cause.isInterruptedOnly(exit.cause) ? "Canceled" : "Internal"),
      onSome: (error) => (typeof error === "object" && error !== null && "_tag" in error ? String(error._tag) : "Internal")
    })

/** `run`, as operation `tag` of the current call (if any): noted in its CallNote. */
export const notedAs = (tag: string) => <A, E, R>(run: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(FiberRef.get(CurrentCallNote), (note) => (note === undefined ? run : noted(note, tag, run)))

const noted = <A, E, R>(note: CallNote, tag: string, run: Effect.Effect<A, E, R>) => {
  // Each operation named once, in the order first run: a metric label, so its values stay few
  // however many fields a GraphQL document repeats.
  if (note.operation === undefined) note.operation = tag
  else if (!note.operation.split(",").includes(tag)) note.operation = `${note.operation},${tag}`
  const spanned = note.traced
    ? Effect.withSpan(run, tag, { kind: "internal", captureStackTrace: false, attributes: { "onboarding.operation": tag } })
    : run
  return Effect.onExit(spanned, (exit) =>
    Effect.sync(() => {
      if (note.outcome === undefined || note.outcome === "ok") note.outcome = outcomeOf(exit)
    }))
}

/** The declaration of operation `tag` in a table; a tag the table does not hold is a bug in this program. */
export const rpcOf = <Rpcs extends Rpc.Any>(table: RpcGroup.RpcGroup<Rpcs>, tag: Rpcs["_tag"]): Rpcs => {
  const rpc = table.requests.get(tag)
  if (rpc === undefined) throw new Error(`no operation ${tag} in this table`)
  return rpc
}

/**
 * Operation `tag` of a table, as every style calls it: the handler the table's layer
 * (`operationsLayer`) was given. The input goes to the handler as the wire gave it: each handler
 * decodes its payload with the domain's schema (`validated`), which checks the wire shape too and
 * reports every broken rule at once, each naming its field. A style adapter only maps its wire
 * form to the payload's encoded shape, and the result back.
 */
export const operation = <Rpcs extends Rpc.Any, const Tag extends Rpcs["_tag"]>(
  table: RpcGroup.RpcGroup<Rpcs>,
  tag: Tag
): Operation<Rpcs, Tag> => {
  if (!table.requests.has(tag)) throw new Error(`no operation ${tag} in this table`)
  const handlers = handlersOf(table)
  const note = notedAs(tag)
  // The input is checked by the handler itself (`validated`), against the same wire shape.
  return (input) =>
    note(Effect.flatMap(handlers, (record) => record[tag](input as Rpc.Payload<Rpc.ExtractTag<Rpcs, Tag>>))) as ReturnType<
      Operation<Rpcs, Tag>
    >
}
