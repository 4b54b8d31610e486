import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type * as Rpc from "@effect/rpc/Rpc"
import { Effect, Either, Schema } from "effect"
import { InvalidArgument } from "../../../domain/Errors.js"
import { validate } from "../../../domain/Validation.js"

/**
 * Upstream, a payload that does not even have its procedure's wire shape (a number for a name, a
 * field left out) is answered as a defect carrying the schema's text, not as a failure the caller
 * can handle (test/transports/rpc-upstream.test.ts). It is the caller's mistake, so it is
 * corrected to the operation's typed InvalidArgument failure, in the response frame @effect/rpc
 * itself would send for one. Each procedure's check, made once.
 */
export const malformedPayloads = (rpcs: Iterable<Rpc.AnyWithProps>) => {
  const checks = new Map<string, (payload: unknown) => Either.Either<unknown, InvalidArgument>>()
  for (const rpc of rpcs) {
    const check = validate(rpc.payloadSchema as Schema.Schema<unknown, unknown, never>)
    checks.set(rpc._tag, (payload) => Effect.runSync(Effect.either(check(payload))))
  }
  /** The answer to a frame whose payload is malformed, or undefined when it is not. */
  return (tag: string, requestId: unknown, payload: unknown): HttpServerResponse.HttpServerResponse | undefined => {
    const shape = checks.get(tag)!(payload)
    return Either.isLeft(shape) ? failureFrame(requestId, shape.left) : undefined
  }
}

const encodeInvalid = Schema.encodeSync(InvalidArgument)

const failureFrame = (requestId: unknown, error: InvalidArgument) =>
  HttpServerResponse.unsafeJson([{
    _tag: "Exit",
    requestId,
    exit: { _tag: "Failure", cause: { _tag: "Fail", error: encodeInvalid(error) } }
  }])
