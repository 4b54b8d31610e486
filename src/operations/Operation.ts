import type * as Rpc from "@effect/rpc/Rpc"
import type * as RpcGroup from "@effect/rpc/RpcGroup"
import { Cause, Context, Effect, Either, Exit, FiberRef, Layer, Option, type Schema } from "effect"
import type { InvalidArgument } from "../domain/Errors.js"
import { decoderOf, invalidArgumentOf, validate } from "../domain/Validation.js"
import type { DomainRequest, OperationHandlers } from "../contract/OperationHandlers.js"
import { domainSchemaOf } from "../contract/WireShape.js"
import { asBudgetFailure } from "../services/database/InCaller.js"

/** One operation of a table, called from any style: input as the wire gave it -> its reply. */
export type Operation<Rpcs extends Rpc.Any, Tag extends Rpcs["_tag"]> = (
  input: unknown
) => Effect.Effect<
  Rpc.Success<Rpc.ExtractTag<Rpcs, Tag>>,
  Rpc.Error<Rpc.ExtractTag<Rpcs, Tag>> | InvalidArgument,
  OperationHandlers<Rpcs>
>

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
  /** Whether the call is traced (it has a server span). */
  readonly traced: boolean
  /**
   * Whether each operation the call runs gets a span of its own: a traced call that may run
   * several (a GraphQL document of more than one root field). A call of one operation has its
   * server span stand for it, a span fewer on every call (docs/observability.md).
   */
  readonly operationSpans: boolean
  /** A traced call's first failed operation, when its server span stands for it: the span tells it as it ends. */
  failure: Cause.Cause<unknown> | undefined
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

/**
 * How an operation of the call ended, told to its note: run as the operation ends, however it ends.
 * A read whose budget ran out in the call's fiber was told to the note as its caller was answered
 * (`noteFailure`); the fiber then ends interrupted by the budget, which the note is told as
 * `unavailable` too should nothing else be in its cause (InCaller.ts).
 */
const noteExit = (note: CallNote, ended: Exit.Exit<unknown, unknown>): Effect.Effect<void> => {
  const exit = Exit.isFailure(ended) ? Exit.failCause(asBudgetFailure(ended.cause)) : ended
  if (note.outcome === undefined || note.outcome === "ok") note.outcome = outcomeOf(exit)
  // The server span stands for this operation, and tells its failure when it ends (CallTelemetry.ts).
  if (note.traced && !note.operationSpans && note.failure === undefined && Exit.isFailure(exit) && !Cause.isInterruptedOnly(exit.cause)) {
    note.failure = exit.cause
  }
  return Effect.void
}

/**
 * A failure of the call's operation told to its note when the call is answered before the
 * operation ends (a read past its budget, InCaller.ts): the answer's access line, metrics and
 * span read the note as the response closes.
 */
export const noteFailure = (note: CallNote, failure: unknown): void => {
  noteExit(note, Exit.fail(failure))
}

const noted = <A, E, R>(note: CallNote, tag: string, run: Effect.Effect<A, E, R>) => {
  // Each operation named once, in the order first run: a metric label, so its values stay few
  // however many fields a GraphQL document repeats.
  if (note.operation === undefined) note.operation = tag
  else if (!note.operation.split(",").includes(tag)) note.operation = `${note.operation},${tag}`
  const spanned = note.operationSpans
    ? Effect.withSpan(run, tag, { kind: "internal", captureStackTrace: false, attributes: { "onboarding.operation": tag } })
    : run
  return Effect.onExit(spanned, (exit) => noteExit(note, exit))
}

/** The declaration of operation `tag` in a table; a tag the table does not hold is a bug in this program. */
export const rpcOf = <Rpcs extends Rpc.Any>(table: RpcGroup.RpcGroup<Rpcs>, tag: Rpcs["_tag"]): Rpcs => {
  const rpc = table.requests.get(tag)
  if (rpc === undefined) throw new Error(`no operation ${tag} in this table`)
  return rpc
}

/** Operation `tag`'s domain request schema: the one its wire shape keeps (WireShape.ts). */
const requestSchemaOf = <Rpcs extends Rpc.Any, const Tag extends Rpcs["_tag"]>(
  table: RpcGroup.RpcGroup<Rpcs>,
  tag: Tag
): Schema.Schema<DomainRequest<Rpc.ExtractTag<Rpcs, Tag>>, unknown, never> => {
  const payload = (rpcOf(table, tag) as unknown as Rpc.AnyWithProps).payloadSchema
  // The tables' payloads are wire shapes of the domain's pure schemas (`wireShape`): no context.
  return domainSchemaOf(payload) as Schema.Schema<DomainRequest<Rpc.ExtractTag<Rpcs, Tag>>, unknown, never>
}

/**
 * Operation `tag`'s one decode: a value as the wire gave it (a style maps its wire form to the
 * payload's encoded shape, and no more) -> the operation's domain request, by the domain schema
 * its wire shape keeps (WireShape.ts). Every broken rule is reported at once, each an
 * InvalidArgument naming its field, a field the schema does not have among them. Made once per
 * operation, before any call.
 */
export const requestOf = <Rpcs extends Rpc.Any, const Tag extends Rpcs["_tag"]>(
  table: RpcGroup.RpcGroup<Rpcs>,
  tag: Tag
): (input: unknown) => Effect.Effect<DomainRequest<Rpc.ExtractTag<Rpcs, Tag>>, InvalidArgument> =>
  validate(requestSchemaOf(table, tag))

/**
 * Operation `tag` of a table, as every style calls it: the input decoded once (as `requestOf`
 * does), then the handler the table's layer (`operationsLayer`) was given, which takes the domain
 * request. A style adapter only maps its wire form to the payload's encoded shape, and the
 * result back.
 */
export const operation = <Rpcs extends Rpc.Any, const Tag extends Rpcs["_tag"]>(
  table: RpcGroup.RpcGroup<Rpcs>,
  tag: Tag
): Operation<Rpcs, Tag> => {
  const decode = decoderOf(requestSchemaOf(table, tag))
  const handlers = handlersOf(table)
  // A throw while the handler makes its Effect is a defect the note still sees, as in a flatMap.
  const handled = (context: Context.Context<never>, request: DomainRequest<Rpc.ExtractTag<Rpcs, Tag>>) => {
    try {
      return Context.unsafeGet(context, handlers)[tag](request)
    } catch (defect) {
      return Effect.die(defect)
    }
  }
  // One look at the fiber for the handlers and the call's note: this runs on every call. The decode
  // is synchronous, so the handler is called here on its value, without an Effect for the decode
  // and a step of the fiber to flatMap it (docs/benchmarks.md §6).
  return (input) =>
    Effect.withFiberRuntime((fiber) => {
      const decoded = decode(input)
      const run = Either.isRight(decoded) ? handled(fiber.currentContext, decoded.right) : Effect.fail(invalidArgumentOf(decoded.left))
      const note = fiber.getFiberRef(CurrentCallNote)
      return note === undefined ? run : noted(note, tag, run)
    })
}
