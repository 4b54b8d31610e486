import { ConnectError } from "@connectrpc/connect"
import { errorToJson } from "@connectrpc/connect/protocol-connect"
import { Cause, Option } from "effect"
import type { DomainError } from "../domain/Errors.js"
import { errorTable, type FailureKind } from "../contract/ErrorCodes.js"

export { errorTable, type FailureKind, type WireError } from "../contract/ErrorCodes.js"

/**
 * The error body of each style, written here once and nowhere else: every refusal and every
 * failed call in that style is answered with it. (gRPC and gRPC-Web carry no body: their status
 * and message go in trailers, which connect-es writes from a ConnectError with the table's code.)
 */
export const errorBody = {
  /** REST and `/rpc`'s HTTP-level refusals (contract §5): `{code: <gRPC code>, message, details: []}`. */
  rest: (kind: FailureKind, message: string) => ({ code: errorTable[kind].grpc, message, details: [] }),
  /** GraphQL: one entry of `errors[]`, its code in `extensions.code` (contract §6). */
  graphql: (kind: FailureKind, message: string) => ({ errors: [{ message, extensions: { code: errorTable[kind].graphql } }] }),
  /** Connect unary: the protocol's JSON error `{code: "not_found", message}`. */
  connect: (kind: FailureKind, message: string) => errorToJson(connectError(kind, message), undefined)
}

/** The ConnectError of `kind`: what Connect, gRPC and gRPC-Web answers are written from. */
export const connectError = (kind: FailureKind, message: string) => new ConnectError(message, errorTable[kind].connect)

/** What a caller is told about a failed call: its kind and a message that is safe to show. */
export interface CallFailure {
  readonly kind: FailureKind
  readonly message: string
}

/**
 * Reduces a failed call to what the caller may see. Typed domain errors keep their message;
 * defects and interruptions become `internal` with a fixed text, so no stack trace, SQL or
 * driver detail ever reaches the wire (the full cause goes to the log instead).
 */
export const callFailure = (cause: Cause.Cause<DomainError>): CallFailure =>
  Option.match(Cause.failureOption(cause), {
    onNone: () => ({ kind: "Internal", message: "internal error" }),
    onSome: (error) => ({ kind: error._tag, message: error.message })
  })
