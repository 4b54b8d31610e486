import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Cause, Data, Effect, Option } from "effect"
import type { DomainError } from "../../domain/Errors.js"
import { type CallFailure, callFailure, errorTable } from "../ErrorTable.js"

/**
 * A request refused by the HTTP layer itself (wrong content type, wrong method, unknown path):
 * not a domain failure, so it carries its own status, and the gRPC code its body shows.
 */
export class HttpRejection extends Data.TaggedError("HttpRejection")<{
  readonly status: number
  readonly code: number
  readonly message: string
  readonly headers?: Record<string, string>
}> {}

/** The REST error body of design §3.5: `{code, message, details}` with the table's HTTP status. */
export const errorReply = (status: number, code: number, message: string, headers?: Record<string, string>) =>
  HttpServerResponse.unsafeJson({ code, message, details: [] }, { status, ...(headers ? { headers } : {}) })

export const failureReply = (failure: CallFailure) =>
  errorReply(errorTable[failure.kind].http, errorTable[failure.kind].grpc, failure.message)

/** Runs a REST operation: its value becomes a 200 JSON reply, its failure an error reply. */
export const restCall = <A, R>(operation: Effect.Effect<A, DomainError | HttpRejection, R>) =>
  operation.pipe(
    Effect.map((body) => HttpServerResponse.unsafeJson(body)),
    Effect.catchAllCause((cause) => {
      const rejection = Option.filter(Cause.failureOption(cause), (e): e is HttpRejection => e._tag === "HttpRejection")
      if (Option.isSome(rejection)) {
        const { code, headers, message, status } = rejection.value
        return Effect.succeed(errorReply(status, code, message, headers))
      }
      if (Cause.isInterruptedOnly(cause)) return Effect.interrupt
      const failure = callFailure(cause as Cause.Cause<DomainError>)
      return failure.kind === "Internal"
        ? Effect.as(Effect.logError("REST call failed", cause), failureReply(failure))
        : Effect.succeed(failureReply(failure))
    })
  )

/** For a path that exists but not with this method. */
export const methodNotAllowed = (allowed: ReadonlyArray<string>) =>
  Effect.succeed(errorReply(405, 12, `method not allowed; use ${allowed.join(", ")}`, { allow: allowed.join(", ") }))

const methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const

/** Answers 405 with `Allow` for every method of `path` other than `allowed`. */
export const refuseOtherMethods = (path: `/${string}`, allowed: ReadonlyArray<(typeof methods)[number]>) =>
<E, R>(router: HttpRouter.HttpRouter<E, R>): HttpRouter.HttpRouter<E, R> =>
  methods.filter((method) => !allowed.includes(method)).reduce(
    (routes, method) => HttpRouter.route(method)(path, methodNotAllowed(allowed))(routes),
    router
  )
