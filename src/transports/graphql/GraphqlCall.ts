import { Cause, Effect, Exit, type Fiber, Runtime } from "effect"
import type { Writable } from "node:stream"
import { GraphQLError, type GraphQLResolveInfo, Kind } from "./GraphqlJs.js"
import type { DomainError } from "../../domain/Errors.js"
import { callFailure, graphqlErrorExtensions } from "../ErrorTable.js"
import { type Call, withinCall } from "../http/Calls.js"

/**
 * The fibers of one request's resolvers, interrupted when the client goes away before its answer
 * is written. In place of an AbortSignal: an AbortController a request and a listener on its
 * signal a resolver (Node's EventTarget) cost more than this whole class (docs/benchmarks.md §5).
 */
export class ResolverFibers {
  private running: Set<Fiber.RuntimeFiber<unknown, unknown>> | undefined = undefined
  private gone = false

  constructor(response: Writable) {
    response.once("close", () => {
      if (response.writableEnded) return
      this.gone = true
      this.running?.forEach((fiber) => fiber.unsafeInterruptAsFork(fiber.id()))
    })
  }

  /** Interrupts `fiber` when the client goes away (at once, if it has). */
  watch(fiber: Fiber.RuntimeFiber<unknown, unknown>): void {
    if (this.gone) return fiber.unsafeInterruptAsFork(fiber.id())
    const running = (this.running ??= new Set())
    running.add(fiber)
    fiber.addObserver(() => running.delete(fiber))
  }
}

/** What the resolvers of one request share: its request id, its call, and its resolvers' fibers. */
export type GraphqlContext = { readonly fibers: ResolverFibers; readonly requestId: string; readonly call: Call | undefined }

/**
 * Runs one root field's Effect for graphql-js. A failure is thrown as a GraphQLError carrying the
 * table's code and its details (`fieldViolations`, `resourceInfo`); graphql-js then adds the field's `path` and `locations` and keeps the extensions.
 */
export type GraphqlCall<R> = <A>(
  effect: Effect.Effect<A, DomainError, R>,
  context: GraphqlContext,
  info: GraphQLResolveInfo
) => Promise<A>

/** Whether the operation being run selects one root field and nothing else: the call runs one operation. */
const oneRootField = (info: GraphQLResolveInfo): boolean => {
  const selections = info.operation.selectionSet.selections
  return selections.length === 1 && selections[0]!.kind === Kind.FIELD
}

export const graphqlCall = <R>(runtime: Runtime.Runtime<R>): GraphqlCall<R> => {
  const runFork = Runtime.runFork(runtime)
  return async <A>(effect: Effect.Effect<A, DomainError, R>, context: GraphqlContext, info: GraphQLResolveInfo): Promise<A> => {
    const call = context.call
    if (call !== undefined && !call.severalOperations && !oneRootField(info)) call.severalOperations = true
    // The client going away interrupts the call; database work already under way finishes on its
    // own (see withinBudget).
    const exit = await new Promise<Exit.Exit<A, DomainError>>((resolve) => {
      const fiber = runFork(withinCall(context.call, context.requestId)(effect))
      fiber.addObserver(resolve)
      context.fibers.watch(fiber)
    })
    if (Exit.isSuccess(exit)) return exit.value
    const failure = callFailure(exit.cause)
    if (failure.kind === "Internal" && !Cause.isInterruptedOnly(exit.cause)) {
      runFork(
        Effect.logError(`GraphQL ${info.parentType.name}.${info.fieldName} failed`, exit.cause).pipe(
          Effect.annotateLogs("requestId", context.requestId)
        )
      )
    }
    throw new GraphQLError(failure.message, { extensions: graphqlErrorExtensions(failure.kind, failure) })
  }
}
