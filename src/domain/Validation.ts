import { Effect, ParseResult, Schema } from "effect"
import { FieldViolation, InvalidArgument } from "./Errors.js"

const violationsOf = (error: ParseResult.ParseError): ReadonlyArray<FieldViolation> =>
  ParseResult.ArrayFormatter.formatErrorSync(error).map(
    (issue) => new FieldViolation({ field: issue.path.join("."), description: issue.message })
  )

/** Decodes untrusted input into a domain value; every broken rule is reported with its field path. */
export const validate = <A, I>(schema: Schema.Schema<A, I, never>) => {
  const decode = Schema.decodeUnknown(schema, { errors: "all", onExcessProperty: "ignore" })
  return (input: unknown): Effect.Effect<A, InvalidArgument> =>
    decode(input).pipe(Effect.mapError((error) => InvalidArgument.fromViolations(violationsOf(error))))
}
