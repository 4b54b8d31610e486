import { Effect, Either, ParseResult, type Schema } from "effect"
import { FieldViolation, InvalidArgument } from "./Errors.js"

/**
 * A field that may be null (`Schema.NullOr`) reports both members when a value fits neither; the
 * "Expected null" half never tells the caller anything, so it is left out when there is more.
 */
const isNullAlternative = (issue: ParseResult.ArrayFormatterIssue) => issue.message.startsWith("Expected null, actual")

const violationsOf = (error: ParseResult.ParseError): ReadonlyArray<FieldViolation> => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
  const told = issues.length > 1 ? issues.filter((issue) => !isNullAlternative(issue)) : issues
  return told.map((issue) => new FieldViolation({ field: issue.path.join("."), description: issue.message }))
}

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
