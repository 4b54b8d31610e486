import { Cause, Effect, Exit, type Fiber, Runtime } from "effect"
import type { Writable } from "node:stream"
import { GraphQLError, type GraphQLResolveInfo, Kind } from "./GraphqlJs.js"
import type { DomainError } from "../../domain/Errors.js"
import { callEnded, callerGone, readsInCaller } from "../../operations/DatabaseAccess.js"
import { noteFailure } from "../../operations/Operation.js"
import { callFailure, graphqlErrorExtensions } from "../ErrorTable.js"
import { type Call, callRefs, underCallSpan } from "../http/Calls.js"

/**
 * The fibers of one request's resolvers, interrupted when the client goes away before its answer
 * is written. In place of an AbortSignal: an AbortController a request and a listener on its
 * signal a resolver (Node's EventTarget) cost more than this whole class (docs/benchmarks.md §5).
 */
export class ResolverFibers {
  private running: Set<Fiber.RuntimeFiber<unknown, unknown>> | undefined = undefined
  private gone = false

  constructor(response: Writable) {
    // A response closes once: `on`, not `once`, which wraps the listener anew for each response.
    response.on("close", () => {
      if (response.writableEnded) return
      this.gone = true
      // A fiber running a unit of work (a read run in it: InCaller.ts) is interrupted as the unit
      // ends, as a forked unit runs on to its end.
      this.running?.forEach(callerGone)
    })
  }

  /** Interrupts `fiber` when the client goes away (at once, if it has), until it is `done`. */
  watch(fiber: Fiber.RuntimeFiber<unknown, unknown>): void {
    if (this.gone) return callerGone(fiber)
    ;(this.running ??= new Set()).add(fiber)
  }

  /** `fiber` has ended: the client going away no longer concerns it. */
  done(fiber: Fiber.RuntimeFiber<unknown, unknown>): void {
    this.running?.delete(fiber)
  }
}

/** What the resolvers of one request share: its request id, its call, and its resolvers' fibers. */
export type GraphqlContext = { readonly fibers: ResolverFibers; readonly requestId: string; readonly call: Call | undefined }

/**
 * Runs one root field's Effect for graphql-js; its value is the reply, or the reply's field
 * `holder` holds it (GraphqlApi's `replies`). A failure is thrown as a GraphQLError carrying the
 * table's code and its details (`fieldViolations`, `resourceInfo`); graphql-js then adds the field's `path` and `locations` and keeps the extensions.
 */
export type GraphqlCall<R> = <A>(
  effect: Effect.Effect<A, DomainError, R>,
  context: GraphqlContext,
  info: GraphQLResolveInfo,
  holder?: string
) => Promise<unknown>

/** Whether the operation being run selects one root field and nothing else: the call runs one operation. */
const oneRootField = (info: GraphQLResolveInfo): boolean => {
  const selections = info.operation.selectionSet.selections
  return selections.length === 1 && selections[0]!.kind === Kind.FIELD
}

export const graphqlCall = <R>(runtime: Runtime.Runtime<R>): GraphqlCall<R> => {
  const runFork = Runtime.runFork(runtime)
  const failure = (cause: Cause.Cause<DomainError>, context: GraphqlContext, info: GraphQLResolveInfo): GraphQLError => {
    const failure = callFailure(cause)
    if (failure.kind === "Internal" && !Cause.isInterruptedOnly(cause)) {
      runFork(
        Effect.logError(`GraphQL ${info.parentType.name}.${info.fieldName} failed`, cause).pipe(
          Effect.annotateLogs("requestId", context.requestId)
        )
      )
    }
    return new GraphQLError(failure.message, { extensions: graphqlErrorExtensions(failure.kind, failure) })
  }
  // A promise settled by the fiber's one observer: no async function and no await around it, each
  // of which is one more promise and one more turn of the microtask queue a call.
  return <A>(effect: Effect.Effect<A, DomainError, R>, context: GraphqlContext, info: GraphQLResolveInfo, holder?: string): Promise<unknown> => {
    const call = context.call
    if (call !== undefined && !call.severalOperations && !oneRootField(info)) call.severalOperations = true
    // The client going away interrupts the call, once database work under way has ended (see
    // withinBudget). Its reads run in its fiber (InCaller.ts): one whose budget runs out is
    // answered, and noted, at once; the fiber's own end later changes neither.
    return new Promise<unknown>((resolve, reject) => {
      const run = underCallSpan(context.call)(effect)
      const fiber = runFork(readsInCaller(run, (expired) => {
        if (context.call !== undefined) noteFailure(context.call, expired)
        reject(failure(Cause.fail(expired), context, info))
      }), callRefs(context.call, context.requestId))
      context.fibers.watch(fiber)
      fiber.addObserver((exit: Exit.Exit<A, DomainError>) => {
        callEnded(fiber)
        context.fibers.done(fiber)
        if (Exit.isSuccess(exit)) resolve(holder === undefined ? exit.value : { [holder]: exit.value })
        else reject(failure(exit.cause, context, info))
      })
    })
  }
}
