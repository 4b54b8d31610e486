import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect"
import { Cause, Effect, Exit, Runtime } from "effect"
import type { DomainError } from "../../domain/Errors.js"
import { callFailure, errorTable } from "../ErrorTable.js"

/** Runs one call's Effect for a connect-node handler and turns its failure into a ConnectError. */
export type EffectCall<R> = <A>(context: HandlerContext, effect: Effect.Effect<A, DomainError, R>) => Promise<A>

export const effectCall = <R>(runtime: Runtime.Runtime<R>): EffectCall<R> => {
  const runExit = Runtime.runPromiseExit(runtime)
  const runLog = Runtime.runFork(runtime)
  return async (context, effect) => {
    // The client's cancellation (or a deadline) interrupts the call; database work already under way
    // finishes on its own (see withinBudget) and its answer is dropped.
    const exit = await runExit(effect, { signal: context.signal })
    if (Exit.isSuccess(exit)) return exit.value
    if (Cause.isInterruptedOnly(exit.cause)) throw new ConnectError("the call was cancelled", Code.Canceled)
    const failure = callFailure(exit.cause)
    if (failure.kind === "Internal") {
      runLog(Effect.logError(`${context.method.parent.typeName}/${context.method.name} failed`, exit.cause))
    }
    throw new ConnectError(failure.message, errorTable[failure.kind].connect)
  }
}
