import { Option, ParseResult, SchemaAST as AST } from "effect"
import { limitsInWords } from "./Described.js"

/*
 * A rule's words where Schema would write its own "Expected <type or description>, actual <value>"
 * (contract §3.7): what the field must be, read from the schema the value failed — its limits
 * (`limitsInWords`), its kind of value, its literals — so that every refusal says the rule, an
 * optional field's included. A rule written with its own message keeps it.
 */

/** What a value of each JSON kind must be, in words: one wording in every style (contract §8). */
export const kindWords = {
  string: "a string",
  number: "a number",
  wholeNumber: "a whole number",
  boolean: "true or false",
  object: "an object",
  list: "a list"
} as const

/** A whole number's rule with its bounds (a 32-bit integer's, in JSON and GraphQL alike). */
export const wholeNumberFrom = (min: bigint | number, max: bigint | number) => `must be ${kindWords.wholeNumber} from ${min} to ${max}`

const literalWords = (literal: AST.LiteralValue) => JSON.stringify(typeof literal === "bigint" ? String(literal) : literal)

/** What a value failing `ast` must be, in words; undefined where the schema says nothing plainer than Schema would. */
const mustBe = (ast: AST.AST): string | undefined => {
  switch (ast._tag) {
    case "Refinement": {
      const limits = limitsInWords(ast)
      if (limits.length > 0) return limits.join(", ")
      const schema: { readonly type?: unknown } = Option.getOrElse(AST.getJSONSchemaAnnotation(ast), () => ({}))
      return schema.type === "integer" ? kindWords.wholeNumber : mustBe(ast.from)
    }
    case "StringKeyword":
    case "TemplateLiteral":
      return kindWords.string
    case "NumberKeyword":
      return kindWords.number
    case "BooleanKeyword":
      return kindWords.boolean
    case "Literal":
      return literalWords(ast.literal)
    case "Enums":
      return `one of: ${ast.enums.map(([, value]) => literalWords(value)).join(", ")}`
    case "TypeLiteral":
    case "Declaration":
      return kindWords.object
    case "TupleType":
      return kindWords.list
    case "Transformation":
      return mustBe(ast.to) ?? mustBe(ast.from)
    case "Suspend":
      return mustBe(ast.f())
    case "Union": {
      const members = ast.types.filter((member) => member._tag !== "Literal" || member.literal !== null)
        .filter((member) => !(member._tag === "Literal" && member.literal === ""))
        .map(mustBe)
      if (members.length === 0 || members.some((each) => each === undefined)) return undefined
      return [...new Set(members)].join(" or ")
    }
    default:
      return undefined
  }
}

/** Each value-of-the-wrong-kind issue in `issue`, by its path as ArrayFormatter writes it (`license.start`). */
const typeIssues = (issue: ParseResult.ParseIssue, path: ReadonlyArray<PropertyKey>, found: Map<string, AST.AST>): void => {
  switch (issue._tag) {
    case "Type": {
      const at = path.join(".")
      if (!found.has(at)) found.set(at, issue.ast)
      return
    }
    case "Pointer":
      return typeIssues(issue.issue, [...path, ...(Array.isArray(issue.path) ? issue.path : [issue.path])], found)
    case "Composite":
      for (const each of Array.isArray(issue.issues) ? issue.issues : [issue.issues]) typeIssues(each, path, found)
      return
    case "Refinement":
    case "Transformation":
      return typeIssues(issue.issue, path, found)
    default:
      return
  }
}

/**
 * The words of each issue ArrayFormatter writes of `issue`: its own, unless it is Schema's
 * "Expected …, actual …", which becomes what the field must be ("must be at most 64 characters",
 * "must be a string").
 */
export const inWords = (issue: ParseResult.ParseIssue) => {
  let found: Map<string, AST.AST> | undefined
  return (each: ParseResult.ArrayFormatterIssue): ParseResult.ArrayFormatterIssue => {
    if (!each.message.startsWith("Expected ")) return each
    if (found === undefined) typeIssues(issue, [], (found = new Map()))
    const ast = found.get(each.path.join("."))
    const words = ast === undefined ? undefined : mustBe(ast)
    return words === undefined ? each : { ...each, message: `must be ${words}` }
  }
}
