import type { SchemaAST as AST } from "effect"

/** Reading a schema's shape: its object and element types, through refinements, transformations and classes (GraphQL descriptions, and the tests that hold each style's declarations to the schemas). */

/** Absent, in JSON: `undefined` (an optional member) or `null` (proto3 JSON's "not set"). */
export const isAbsent = (ast: AST.AST) => ast._tag === "UndefinedKeyword" || (ast._tag === "Literal" && ast.literal === null)

/** The object type an AST stands for, on its encoded (wire) side: optional and refined members unwrapped. */
export const objectOf = (ast: AST.AST): AST.TypeLiteral | undefined => {
  switch (ast._tag) {
    case "TypeLiteral":
      return ast
    case "Transformation":
      return objectOf(ast.from)
    case "Refinement":
      return objectOf(ast.from)
    case "Declaration":
      return ast.typeParameters.length === 1 ? objectOf(ast.typeParameters[0]!) : undefined
    case "Suspend":
      return objectOf(ast.f())
    case "Union": {
      const members = ast.types.filter((member) => !isAbsent(member))
      return members.length === 1 ? objectOf(members[0]!) : undefined
    }
    default:
      return undefined
  }
}

/** The element type of an array AST. */
export const elementOf = (ast: AST.AST): AST.AST | undefined => {
  if (ast._tag === "TupleType") return ast.rest[0]?.type
  if (ast._tag === "Union") {
    const members = ast.types.filter((member) => !isAbsent(member))
    return members.length === 1 ? elementOf(members[0]!) : undefined
  }
  if (ast._tag === "Refinement" || ast._tag === "Transformation") return elementOf(ast.from)
  return undefined
}
