import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { ParseResult, Schema } from "effect"
import { AlreadyExists, InvalidArgument, NotFound, Unavailable } from "../../domain/Errors.js"
import { errorTable, type FailureKind } from "../ErrorCodes.js"

/**
 * REST's failures as the HttpApi declares them: each kind a tagged error, written on the wire as
 * the one REST error body `{code: <gRPC code>, message, details: []}` (contract §5) with the
 * HTTP status of the error table. The server's answers are encoded from these schemas and the
 * typed REST client decodes its failures with them, so both meet as the same tagged errors.
 */

/** Every REST error body, with the gRPC code of its kind. */
const restErrorBody = (code: number) =>
  Schema.Struct({
    code: Schema.Literal(code).annotations({ description: "the gRPC status code of the failure" }),
    message: Schema.String.annotations({ description: "what went wrong, naming the field where there is one" }),
    details: Schema.Array(Schema.Unknown).annotations({ description: "always empty" })
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
 * The wire form of a kind's tagged error, at its status. `fromMessage` reads the error's fields
 * back from the body's message (the body carries nothing else); it is the inverse of the class's
 * `message`, so a body another server wrote differently is a decode failure, not a wrong value.
 */
const wireError = <Kind extends FailureKind, E extends { readonly _tag: Kind; readonly message: string }>(
  kind: Kind,
  error: Schema.Schema<E, any>,
  description: string,
  fromMessage: (message: string) => E | undefined
) => {
  const { grpc, http } = errorTable[kind]
  return Schema.transformOrFail(restErrorBody(grpc), Schema.typeSchema(error), {
    strict: true,
    decode: (body, _, ast) => {
      const value = fromMessage(body.message)
      return value === undefined
        ? ParseResult.fail(new ParseResult.Type(ast, body, `not a ${kind} error body`))
        : ParseResult.succeed(value)
    },
    encode: (value) => ParseResult.succeed({ code: grpc, message: value.message, details: [] })
  }).annotations({ ...HttpApiSchema.annotations({ status: http }), description })
}

const matching = (pattern: RegExp) => (message: string) => pattern.exec(message) ?? undefined

const notFound = matching(/^(.+) (\S+) not found$/s)
const alreadyExists = matching(/^(.+) (\S+) already exists with different content$/s)

export const RestErrors = {
  /** The body names the broken rules in its message; `violations` is empty on this side of the wire. */
  InvalidArgument: wireError(
    "InvalidArgument",
    InvalidArgument,
    "the request breaks a rule; the message names each field and its rule",
    (message) => new InvalidArgument({ message, violations: [] })),
  NotFound: wireError("NotFound", NotFound, "no record with this id", (message) => {
    const [, resource, id] = notFound(message) ?? []
    return resource === undefined ? undefined : new NotFound({ resource, id: id! })
  }),
  AlreadyExists: wireError("AlreadyExists", AlreadyExists, "the id already holds other content", (message) => {
    const [, resource, id] = alreadyExists(message) ?? []
    return resource === undefined ? undefined : new AlreadyExists({ resource, id: id! })
  }),
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
