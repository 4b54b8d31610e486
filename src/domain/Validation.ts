import { Effect, Either, ParseResult, type Schema } from "effect"
import { FieldViolation, InvalidArgument } from "./Errors.js"
import { inWords } from "./RuleWords.js"

/**
 * A value that may also be absent (`null`, or an empty string where proto3 cannot tell empty from
 * absent) reports every alternative when it fits none; "Expected null" and `Expected ""` never
 * tell the caller anything, so they are left out when the value's own rule has more to say.
 */
const isAbsentAlternative = (issue: ParseResult.ArrayFormatterIssue) =>
  issue.message.startsWith("Expected null, actual") || issue.message.startsWith(`Expected "", actual`)

/**
 * What a request's field that its message does not have is told, in every style (Connect JSON's
 * own check, jsonReadOptions, says the same): contract §3.2.
 */
export const unknownFieldRule = "is not a known field"

const violationsOf = (issue: ParseResult.ParseIssue): ReadonlyArray<FieldViolation> => {
  const issues = ParseResult.ArrayFormatter.formatIssueSync(issue)
  const told = (issues.length > 1 ? issues.filter((each) => !isAbsentAlternative(each)) : issues).map(inWords(issue))
  // The alternatives of one field can fail alike ("must be a string" for the text and for its
  // absent form): each rule is told once.
  const seen = new Set<string>()
  return told.flatMap((each) => {
    const field = each.path.join(".")
    const description = each._tag === "Unexpected" ? unknownFieldRule : each.message
    const key = JSON.stringify([field, description])
    if (seen.has(key)) return []
    seen.add(key)
    return [new FieldViolation({ field, description })]
  })
}

/** The InvalidArgument a value that broke its schema's rules is answered with: every rule, each with its field. */
export const invalidArgumentOf = (issue: ParseResult.ParseIssue): InvalidArgument =>
  InvalidArgument.fromViolations(violationsOf(issue))

/**
 * Decodes untrusted input into a domain value, as a plain function: the value, or the issue that
 * `invalidArgumentOf` tells. Every broken rule is kept (`errors: "all"`) and a field the schema
 * does not have is one of them (contract §3.2): dropped, it would be data the caller believes
 * stored. The domain's schemas are pure, so decoding is synchronous, and a caller that runs on every
 * request (Operation.ts) branches on it without an Effect made and run for the decode.
 */
export const decoderOf = <A, I>(schema: Schema.Schema<A, I, never>) =>
  ParseResult.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "error" })

/** `decoderOf` as an Effect: the value, or the InvalidArgument `invalidArgumentOf` makes of its issue. */
export const validate = <A, I>(schema: Schema.Schema<A, I, never>) => {
  const decode = decoderOf(schema)
  return (input: unknown): Effect.Effect<A, InvalidArgument> => {
    const decoded = decode(input)
    return Either.isRight(decoded) ? Effect.succeed(decoded.right) : Effect.fail(invalidArgumentOf(decoded.left))
  }
}
