import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Cause, Effect, Option } from "effect"
import { errorBody, errorTable, type FailureKind } from "../ErrorTable.js"
import { logCallError } from "../http/Calls.js"
import { Internal } from "../../contract/RestErrors.js"

/** The REST error answer (contract §5): the table's HTTP status and the one REST error body. */
export const errorReply = (kind: FailureKind, message: string, headers?: Record<string, string>) =>
  HttpServerResponse.unsafeJson(errorBody.rest(kind, message), {
    status: errorTable[kind].http,
    ...(headers ? { headers } : {})
  })

// One function for every call, not a closure made per call.
const answerCause = <E>(cause: Cause.Cause<E>): Effect.Effect<never, E | Internal> => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) return Effect.fail(failure.value)
  if (Cause.isInterruptedOnly(cause)) return Effect.interrupt
  return Effect.zipRight(logCallError("REST call failed", cause), Effect.fail(new Internal({ message: "internal error" })))
}

/**
 * A REST handler's outcome as its endpoint declares it: the value and the typed failures are
 * written by the endpoint's schemas (RestErrors.ts: the table's status, the one REST error body);
 * a defect is logged and answered as Internal with a fixed text, so no stack trace, SQL or driver
 * detail reaches the wire.
 */
export const restCall = <A, E, R>(operation: Effect.Effect<A, E, R>): Effect.Effect<A, E | Internal, R> =>
  Effect.catchAllCause(operation, answerCause<E>)

/** For a path that exists but not with this method. */
export const methodNotAllowed = (allowed: ReadonlyArray<string>) =>
  errorReply("MethodNotAllowed", `method not allowed; use ${allowed.join(", ")}`, { allow: allowed.join(", ") })
