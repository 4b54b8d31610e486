import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Cause, Data, Effect, Option } from "effect"
import type { DomainError } from "../../domain/Errors.js"
import { callFailure, errorBody, errorTable, type FailureKind } from "../ErrorTable.js"
import { logCallError } from "../http/Calls.js"

/**
 * A request refused by the HTTP layer itself (wrong content type, wrong method, unknown path):
 * not a domain failure, so it carries its kind, and any headers its answer needs (`Allow`).
 */
export class HttpRejection extends Data.TaggedError("HttpRejection")<{
  readonly kind: FailureKind
  readonly message: string
  readonly headers?: Record<string, string>
}> {}

/** The REST error answer (contract §3.5): the table's HTTP status and the one REST error body. */
export const errorReply = (kind: FailureKind, message: string, headers?: Record<string, string>) =>
  HttpServerResponse.unsafeJson(errorBody.rest(kind, message), {
    status: errorTable[kind].http,
    ...(headers ? { headers } : {})
  })

/** Runs a REST operation: its value becomes a 200 JSON reply, its failure an error reply. */
export const restCall = <A, R>(operation: Effect.Effect<A, DomainError | HttpRejection, R>) =>
  operation.pipe(
    Effect.map((body) => HttpServerResponse.unsafeJson(body)),
    Effect.catchAllCause((cause) => {
      const rejection = Option.filter(Cause.failureOption(cause), (e): e is HttpRejection => e._tag === "HttpRejection")
      if (Option.isSome(rejection)) {
        const { headers, kind, message } = rejection.value
        return Effect.succeed(errorReply(kind, message, headers))
      }
      if (Cause.isInterruptedOnly(cause)) return Effect.interrupt
      const failure = callFailure(cause as Cause.Cause<DomainError>)
      return failure.kind === "Internal"
        ? Effect.as(logCallError("REST call failed", cause), errorReply(failure.kind, failure.message))
        : Effect.succeed(errorReply(failure.kind, failure.message))
    })
  )

/** For a path that exists but not with this method. */
export const methodNotAllowed = (allowed: ReadonlyArray<string>) =>
  errorReply("MethodNotAllowed", `method not allowed; use ${allowed.join(", ")}`, { allow: allowed.join(", ") })
