import { Effect, Either, ParseResult, type Schema } from "effect"
import { FieldViolation, InvalidArgument } from "./Errors.js"

const violationsOf = (error: ParseResult.ParseError): ReadonlyArray<FieldViolation> =>
  ParseResult.ArrayFormatter.formatErrorSync(error).map(
    (issue) => new FieldViolation({ field: issue.path.join("."), description: issue.message })
  )

/**
 * Decodes untrusted input into a domain value; every broken rule is reported with its field path.
 * The domain's schemas are pure, so decoding is synchronous: it runs on every request.
 */
export const validate = <A, I>(schema: Schema.Schema<A, I, never>) => {
  const decode = ParseResult.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "ignore" })
  return (input: unknown): Effect.Effect<A, InvalidArgument> =>
    Either.match(decode(input), {
      onLeft: (issue) => Effect.fail(InvalidArgument.fromViolations(violationsOf(new ParseResult.ParseError({ issue })))),
      onRight: Effect.succeed
    })
}
