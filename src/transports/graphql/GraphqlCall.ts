import { Cause, Effect, Exit, Runtime } from "effect"
import { GraphQLError, type GraphQLResolveInfo } from "./GraphqlJs.js"
import type { DomainError } from "../../domain/Errors.js"
import { callFailure, errorTable } from "../ErrorTable.js"
import { type Call, withinCall } from "../http/Calls.js"

/** What the resolvers of one request share: its request id, and the signal that the client has gone away. */
export type GraphqlContext = { readonly signal: AbortSignal; readonly requestId: string; readonly call: Call | undefined }

/**
 * Runs one root field's Effect for graphql-js. A failure is thrown as a GraphQLError carrying the
 * table's code; graphql-js then adds the field's `path` and `locations` and keeps the extensions.
 */
export type GraphqlCall<R> = <A>(
  effect: Effect.Effect<A, DomainError, R>,
  context: GraphqlContext,
  info: GraphQLResolveInfo
) => Promise<A>

export const graphqlCall = <R>(runtime: Runtime.Runtime<R>): GraphqlCall<R> => {
  const runExit = Runtime.runPromiseExit(runtime)
  const runLog = Runtime.runFork(runtime)
  return async (effect, context, info) => {
    // The client going away interrupts the call; database work already under way finishes on its
    // own (see withinBudget).
    const exit = await runExit(withinCall(context.call, context.requestId)(effect), { signal: context.signal })
    if (Exit.isSuccess(exit)) return exit.value
    const failure = callFailure(exit.cause)
    if (failure.kind === "Internal" && !Cause.isInterruptedOnly(exit.cause)) {
      runLog(
        Effect.logError(`GraphQL ${info.parentType.name}.${info.fieldName} failed`, exit.cause).pipe(
          Effect.annotateLogs("requestId", context.requestId)
        )
      )
    }
    throw new GraphQLError(failure.message, { extensions: { code: errorTable[failure.kind].graphql } })
  }
}
