import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Option, Schema, SchemaAST } from "effect"
import { AlreadyExists, FieldViolation, InvalidArgument, NotFound, Unavailable } from "../domain/Errors.js"
import { OrgId } from "../domain/Ids.js"
import { errorTable, type FailureKind } from "./ErrorCodes.js"

/**
 * REST's failures as the HttpApi declares them: each kind a tagged error, written on the wire as
 * the one REST error body `{code: <gRPC code>, message, details}` (contract §5) with the HTTP
 * status of the error table; `details` is empty but for a failure about one record, where it
 * names the record (`ResourceInfo`), and a request that breaks a field's rule, where it names each
 * field and its rule (`BadRequest`). The server's answers are encoded from these schemas and the
 * typed REST client decodes its failures with them, so both meet as the same tagged errors.
 */

/**
 * The resource a failure is about, as google.rpc.ResourceInfo is written in an error's details
 * (AIP-193): its type and the id asked for, so that a client reads them without parsing the
 * message.
 */
const ResourceInfo = Schema.Struct({
  "@type": Schema.Literal("type.googleapis.com/google.rpc.ResourceInfo"),
  resourceType: Schema.String.annotations({ description: "the kind of record: org, profile, license, workflow" }),
  resourceName: Schema.String.annotations({ description: "the id asked for, as the caller wrote it" })
}).annotations({ identifier: "ResourceInfo", description: "the record a failure is about (google.rpc.ResourceInfo)" })

/** The record a failure is about, as REST's details and GraphQL's extensions write it. */
export const resourceInfoJson = (resourceType: string, resourceName: string) =>
  ({ "@type": "type.googleapis.com/google.rpc.ResourceInfo" as const, resourceType, resourceName })

/** One broken rule, as google.rpc.BadRequest.FieldViolation is written in JSON. */
const FieldViolationJson = Schema.Struct({
  field: Schema.String.annotations({ description: "the field's path, as the request spelled it (`fullName`, `full_name`, `license.end`)" }),
  description: Schema.String.annotations({ description: "the rule it breaks, in words" })
})

/**
 * The fields a request breaks, as google.rpc.BadRequest is written in an error's details
 * (AIP-193): each field's path and its rule, so that a client (a form) marks the field without
 * parsing the message.
 */
const BadRequest = Schema.Struct({
  "@type": Schema.Literal("type.googleapis.com/google.rpc.BadRequest"),
  fieldViolations: Schema.Array(FieldViolationJson)
}).annotations({ identifier: "BadRequest", description: "the fields a request breaks (google.rpc.BadRequest)" })

/**
 * The violations that name a field, as REST's details write them: none, or one BadRequest. A
 * refusal of the request as a whole (not JSON, not UTF-8) says so in its message alone.
 */
export const badRequestJson = (violations: ReadonlyArray<FieldViolation>) => {
  const fieldViolations = violations.filter((v) => v.field !== "").map(({ field, description }) => ({ field, description }))
  return fieldViolations.length === 0
    ? [] as const
    : [{ "@type": "type.googleapis.com/google.rpc.BadRequest" as const, fieldViolations }] as const
}

const badRequestDetails = Schema.Union(Schema.Tuple(), Schema.Tuple(BadRequest)).annotations({
  description: "the fields the request breaks, when it names any",
  examples: [[{ "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: [{ field: "name", description: "must not be blank" }] }]]
})

const noDetails = Schema.Tuple().annotations({ description: "empty for this kind" })
/**
 * Swagger UI writes no sample of a tuple (`[null]`): its example, the example org's, is the
 * failure its prefilled create meets once that org holds other content.
 */
const resourceDetails = Schema.Tuple(ResourceInfo).annotations({
  description: "the record the failure is about",
  examples: [[{
    "@type": "type.googleapis.com/google.rpc.ResourceInfo",
    resourceType: "org",
    resourceName: String(Option.getOrThrow(SchemaAST.getExamplesAnnotation(OrgId.ast))[0])
  }]]
})

/** Every REST error body, with the gRPC code of its kind and what its details hold. */
const restErrorBody = <D extends Schema.Schema.Any>(code: number, details: D) =>
  Schema.Struct({
    code: Schema.Literal(code).annotations({ description: "the gRPC status code of the failure" }),
    message: Schema.String.annotations({ description: "what went wrong, naming the field where there is one" }),
    details
  })

/** A request this port refused before any operation ran: too large (413), not JSON (415), no token (401). */
export class ResourceExhausted extends Schema.TaggedError<ResourceExhausted>()("ResourceExhausted", {
  message: Schema.String
}) {}
export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()("UnsupportedMediaType", {
  message: Schema.String
}) {}
export class Unauthenticated extends Schema.TaggedError<Unauthenticated>()("Unauthenticated", {
  message: Schema.String
}) {}
/** A defect on the server; its text stays in the server's log. */
export class Internal extends Schema.TaggedError<Internal>()("Internal", { message: Schema.String }) {}

/**
 * The wire form of a kind's tagged error, at its status, with empty details: the body carries the
 * message alone, which is all these kinds hold.
 */
const wireError = <Kind extends FailureKind, E extends { readonly _tag: Kind; readonly message: string }>(
  kind: Kind,
  error: Schema.Schema<E, any>,
  description: string,
  fromMessage: (message: string) => E
) => {
  const { grpc, http } = errorTable[kind]
  return Schema.transform(restErrorBody(grpc, noDetails), Schema.typeSchema(error), {
    strict: true,
    decode: (body) => fromMessage(body.message),
    encode: (value) => ({ code: grpc, message: value.message, details: [] as const })
  }).annotations({ ...HttpApiSchema.annotations({ status: http }), description })
}

/**
 * The wire form of a failure about one record (NotFound, AlreadyExists): the record's type and id
 * in the body's details, as well as in its message, so the typed client reads them from there.
 */
const resourceError = <Kind extends "NotFound" | "AlreadyExists", E extends { readonly _tag: Kind; readonly message: string; readonly resource: string; readonly id: string }>(
  kind: Kind,
  error: Schema.Schema<E, any>,
  description: string,
  make: (fields: { readonly resource: string; readonly id: string }) => E
) => {
  const { grpc, http } = errorTable[kind]
  return Schema.transform(restErrorBody(grpc, resourceDetails), Schema.typeSchema(error), {
    strict: true,
    decode: ({ details: [info] }) => make({ resource: info.resourceType, id: info.resourceName }),
    encode: (value) => ({
      code: grpc,
      message: value.message,
      details: [resourceInfoJson(value.resource, value.id)] as const
    })
  }).annotations({ ...HttpApiSchema.annotations({ status: http }), description })
}

/** The wire form of InvalidArgument: its message, and the violations that name a field in its details. */
const invalidArgument = (() => {
  const { grpc, http } = errorTable.InvalidArgument
  return Schema.transform(restErrorBody(grpc, badRequestDetails), Schema.typeSchema(InvalidArgument), {
    strict: true,
    decode: ({ details, message }) =>
      new InvalidArgument({ message, violations: details.flatMap((each) => each.fieldViolations.map((v) => new FieldViolation(v))) }),
    encode: (value) => ({ code: grpc, message: value.message, details: badRequestJson(value.violations) })
  }).annotations({ ...HttpApiSchema.annotations({ status: http }), description: "the request breaks a rule; the message names each field and its rule, and `details` each field's path and rule" })
})()

export const RestErrors = {
  InvalidArgument: invalidArgument,
  NotFound: resourceError("NotFound", NotFound, "no record with this id", (fields) => new NotFound(fields)),
  AlreadyExists: resourceError("AlreadyExists", AlreadyExists, "the id already holds other content", (fields) => new AlreadyExists(fields)),
  Unavailable: wireError("Unavailable", Unavailable, "the database cannot be reached now; retry later", (message) => new Unavailable({ message })),
  ResourceExhausted: wireError("ResourceExhausted", ResourceExhausted, "the body is over MAX_BODY_BYTES or the JSON bounds", (message) => new ResourceExhausted({ message })),
  UnsupportedMediaType: wireError(
    "UnsupportedMediaType",
    UnsupportedMediaType,
    "the body is not JSON in UTF-8",
    (message) => new UnsupportedMediaType({ message })
  ),
  Unauthenticated: wireError("Unauthenticated", Unauthenticated, "no bearer token, or not API_TOKEN", (message) => new Unauthenticated({ message })),
  Internal: wireError("Internal", Internal, "a fault on the server (its log has the detail)", (message) => new Internal({ message }))
}
