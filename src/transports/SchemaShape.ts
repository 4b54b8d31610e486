import type { SchemaAST as AST } from "effect"

/** Reading a schema's shape: its object and element types, through refinements, transformations and classes (GraphQL descriptions, and the tests that hold each style's declarations to the schemas). */

/** Absent, in JSON: `undefined` (an optional member) or `null` (proto3 JSON's "not set"). */
export const isAbsent = (ast: AST.AST) => ast._tag === "UndefinedKeyword" || (ast._tag === "Literal" && ast.literal === null)

/** The one item of a list that holds exactly one; undefined for none or several. */
export const soleOf = <A>(items: ReadonlyArray<A>): A | undefined => (items.length === 1 ? items[0] : undefined)

/** The one member of a union that is not absent: the type an optional or nullable type stands for. */
export const presentMember = (ast: AST.Union): AST.AST | undefined => soleOf(ast.types.filter((member) => !isAbsent(member)))

/** The object type an AST stands for, on its encoded (wire) side: optional and refined members unwrapped. */
export const objectOf = (ast: AST.AST): AST.TypeLiteral | undefined => {
  switch (ast._tag) {
    case "TypeLiteral":
      return ast
    case "Transformation":
      return objectOf(ast.from)
    case "Refinement":
      return objectOf(ast.from)
    case "Declaration": {
      const parameter = soleOf(ast.typeParameters)
      return parameter === undefined ? undefined : objectOf(parameter)
    }
    case "Suspend":
      return objectOf(ast.f())
    case "Union": {
      const member = presentMember(ast)
      return member === undefined ? undefined : objectOf(member)
    }
    default:
      return undefined
  }
}

/** The element type of an array AST. */
export const elementOf = (ast: AST.AST): AST.AST | undefined => {
  if (ast._tag === "TupleType") return ast.rest[0]?.type
  if (ast._tag === "Union") {
    const member = presentMember(ast)
    return member === undefined ? undefined : elementOf(member)
  }
  if (ast._tag === "Refinement" || ast._tag === "Transformation") return elementOf(ast.from)
  return undefined
}
