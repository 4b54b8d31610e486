import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect"
import { Cause, Effect, Exit, Runtime } from "effect"
import type { DomainError } from "../../domain/Errors.js"
import { callEnded, readsInCaller } from "../../operations/DatabaseAccess.js"
import { noteFailure } from "../../operations/Operation.js"
import { callFailure, connectError } from "../ErrorTable.js"
import { callRefs, underCallSpan } from "../http/Calls.js"
import { requestIdHeader } from "../http/RequestId.js"
import { callKey } from "./ConnectNodeAdapter.js"
import { fieldNamingOf, takeJsonRead } from "./SentJson.js"

/** Runs one call's Effect for a connect-node handler and turns its failure into a ConnectError. */
export type EffectCall<R> = <A>(context: HandlerContext, effect: Effect.Effect<A, DomainError, R>) => Promise<A>

/** DEADLINE_EXCEEDED or CANCELLED, as connect-node gave the reason; anything else is a cancellation. */
const abortedAnswer = (signal: AbortSignal): ConnectError =>
  signal.reason instanceof ConnectError &&
    (signal.reason.code === Code.DeadlineExceeded || signal.reason.code === Code.Canceled)
    ? signal.reason
    : new ConnectError("the call was cancelled", Code.Canceled)

/**
 * A call's deadline or cancellation is honoured only before its work begins: then nothing has run,
 * and DEADLINE_EXCEEDED / CANCELLED are true answers. Once begun, the call is not interrupted but
 * waited for, and its real outcome is the answer. The work cannot be stopped safely part-way:
 * database work runs on to its commit or rollback (see withinBudget), so an error
 * answered on the signal would say "failed" about a write that committed, and a client retrying
 * a workflow without its id would onboard twice. The wait is bounded by the operation budget.
 * A client that has gone gets nothing; one whose own deadline passed sees an ambiguous
 * DEADLINE_EXCEEDED, as gRPC and Connect define it (README: a retry with the same ids resolves it).
 */
export const effectCall = <R>(runtime: Runtime.Runtime<R>): EffectCall<R> => {
  const runFork = Runtime.runFork(runtime)
  /** The ConnectError a failed call is answered with; an unforeseen failure is logged first. */
  const failed = (context: HandlerContext, json: unknown, cause: Cause.Cause<DomainError>): ConnectError => {
    if (Cause.isInterruptedOnly(cause)) return new ConnectError("the call was cancelled", Code.Canceled)
    const failure = callFailure(cause, fieldNamingOf(context, json))
    if (failure.kind === "Internal") {
      runFork(
        Effect.logError(`${context.method.parent.typeName}/${context.method.name} failed`, cause).pipe(
          Effect.annotateLogs("requestId", requestIdOf(context))
        )
      )
    }
    return connectError(failure.kind, failure.message, failure)
  }
  // One promise a call, settled by the fiber's observer: what `runPromiseExit` does, without a
  // second promise of an async function awaiting it. Its reads run in its fiber (InCaller.ts):
  // one whose budget runs out is answered at once, and the fiber's own end later changes nothing.
  return (context, effect) => {
    const json = takeJsonRead()
    if (context.signal.aborted) return Promise.reject(abortedAnswer(context.signal))
    const call = context.values.get(callKey)
    return new Promise((resolve, reject) => {
      const settle = (cause: Cause.Cause<DomainError>) => {
        try {
          reject(failed(context, json, cause))
        } catch (error) {
          reject(error)
        }
      }
      const run = underCallSpan(call)(effect)
      const refs = callRefs(call, call === undefined ? requestIdOf(context) : "")
      const fiber = runFork(readsInCaller(run, (failure) => {
        if (call !== undefined) noteFailure(call, failure)
        settle(Cause.fail(failure))
      }), refs)
      fiber.addObserver((exit) => {
        callEnded(fiber)
        if (Exit.isSuccess(exit)) resolve(exit.value)
        else settle(exit.cause)
      })
    })
  }
}

/** The request id the pipeline gave the call (RequestId.ts), as its header carries it. */
const requestIdOf = (context: HandlerContext): string => context.requestHeader.get(requestIdHeader) ?? ""
