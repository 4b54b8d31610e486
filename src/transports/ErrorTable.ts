import { create } from "@bufbuild/protobuf"
import { ConnectError } from "@connectrpc/connect"
import { errorToJson } from "@connectrpc/connect/protocol-connect"
import { Cause, Option } from "effect"
import type { DomainError, FieldViolation } from "../domain/Errors.js"
import { errorTable, type FailureKind } from "../contract/ErrorCodes.js"
import { badRequestJson, resourceInfoJson } from "../contract/RestErrors.js"
import { BadRequestSchema, ResourceInfoSchema } from "../gen/google/rpc/error_details_pb.js"

export { errorTable, type FailureKind, type WireError } from "../contract/ErrorCodes.js"

/**
 * What a failure tells besides its message, in every style (contract §3.7, AIP-193): the fields a
 * request breaks (google.rpc.BadRequest), each by its path as the style names it, or the record a
 * failure is about (google.rpc.ResourceInfo).
 */
export interface FailureDetails {
  readonly violations?: ReadonlyArray<FieldViolation>
  readonly resource?: { readonly type: string; readonly name: string }
}

/** The violations that name a field: a refusal of the request as a whole says so in its message alone. */
const fieldViolations = (details: FailureDetails) => (details.violations ?? []).filter((v) => v.field !== "")

/** A failure's GraphQL extensions: the table's code, `fieldViolations` (`[{field, description}]`) and `resourceInfo`. */
export const graphqlErrorExtensions = (kind: FailureKind, details: FailureDetails = {}) => {
  const violations = fieldViolations(details)
  return {
    code: errorTable[kind].graphql,
    ...(violations.length === 0 ? {} : { fieldViolations: violations.map(({ field, description }) => ({ field, description })) }),
    ...(details.resource === undefined
      ? {}
      : { resourceInfo: { resourceType: details.resource.type, resourceName: details.resource.name } })
  }
}

/**
 * The error body of each style, written here once and nowhere else: every refusal and every
 * failed call in that style is answered with it. (gRPC and gRPC-Web carry no body: their status,
 * message and details go in trailers, which connect-es writes from a ConnectError with the
 * table's code.)
 */
export const errorBody = {
  /** REST and `/rpc`'s HTTP-level refusals (contract §5): `{code: <gRPC code>, message, details}`, details as google.rpc.Status JSON. */
  rest: (kind: FailureKind, message: string, details: FailureDetails = {}) => ({
    code: errorTable[kind].grpc,
    message,
    details: [
      ...badRequestJson(fieldViolations(details)),
      ...(details.resource === undefined ? [] : [resourceInfoJson(details.resource.type, details.resource.name)])
    ]
  }),
  /** GraphQL: one entry of `errors[]`, its code in `extensions.code` (contract §6), its details beside it. */
  graphql: (kind: FailureKind, message: string, details: FailureDetails = {}) => ({
    errors: [{ message, extensions: graphqlErrorExtensions(kind, details) }]
  }),
  /** Connect unary: the protocol's JSON error `{code: "not_found", message, details}`. */
  connect: (kind: FailureKind, message: string, details: FailureDetails = {}) =>
    errorToJson(connectError(kind, message, details), undefined)
}

/** The ConnectError of `kind`: what Connect, gRPC and gRPC-Web answers are written from, their details included. */
export const connectError = (kind: FailureKind, message: string, details: FailureDetails = {}) => {
  const violations = fieldViolations(details)
  return new ConnectError(message, errorTable[kind].connect, undefined, [
    ...(violations.length === 0
      ? []
      : [{ desc: BadRequestSchema, value: create(BadRequestSchema, { fieldViolations: violations.map(({ field, description }) => ({ field, description })) }) }]),
    ...(details.resource === undefined
      ? []
      : [{ desc: ResourceInfoSchema, value: create(ResourceInfoSchema, { resourceType: details.resource.type, resourceName: details.resource.name }) }])
  ])
}

/** What a caller is told about a failed call: its kind, a message that is safe to show, and its details. */
export interface CallFailure extends FailureDetails {
  readonly kind: FailureKind
  readonly message: string
}

/** A violation's field path as a style names it (the domain names it by the JSON names). */
export type FieldNaming = (field: string) => string

const asTheDomainNamesIt: FieldNaming = (field) => field

/**
 * Reduces a failed call to what the caller may see. Typed domain errors keep their message and
 * details, each violation's field named by `naming`; defects and interruptions become `internal`
 * with a fixed text, so no stack trace, SQL or driver detail ever reaches the wire (the full
 * cause goes to the log instead).
 */
export const callFailure = (cause: Cause.Cause<DomainError>, naming: FieldNaming = asTheDomainNamesIt): CallFailure =>
  Option.match(Cause.failureOption(cause), {
    onNone: () => ({ kind: "Internal", message: "internal error" }),
    onSome: (error): CallFailure => {
      switch (error._tag) {
        case "InvalidArgument":
          return { kind: error._tag, message: error.message, violations: error.violations.map((v) => ({ ...v, field: naming(v.field) })) }
        case "NotFound":
        case "AlreadyExists":
          return { kind: error._tag, message: error.message, resource: { type: error.resource, name: error.id } }
        default:
          return { kind: error._tag, message: error.message }
      }
    }
  })
