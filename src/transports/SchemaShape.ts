import { Option, SchemaAST as AST } from "effect"

/** Reading a schema's shape: its object and element types, through refinements, transformations and classes, and a record's fields as declared (GraphQL descriptions, the console's form, and the tests that hold each style's declarations to the schemas). */

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

/**
 * A record's fields as declared: each property signature with its own annotations (the type side
 * keeps them), and its type as the encoded side writes it. A record is a struct, a class, a struct
 * with a rule across fields (a refinement), one with a transformed field (a transformation of two
 * structs), or a nullable one (a union with null); anything else has no fields.
 */
export const recordFields = (ast: AST.AST): ReadonlyArray<{ readonly ps: AST.PropertySignature; readonly type: AST.AST }> => {
  switch (ast._tag) {
    case "TypeLiteral":
      return ast.propertySignatures.map((ps) => ({ ps, type: ps.type }))
    case "Refinement":
      return recordFields(ast.from)
    case "Union":
      return ast.types.map(recordFields).find((fields) => fields.length > 0) ?? []
    case "Transformation": {
      if (ast.to._tag === "Declaration") return recordFields(ast.from)
      if (ast.from._tag !== "TypeLiteral" || ast.to._tag !== "TypeLiteral") return []
      const encoded = ast.from.propertySignatures
      return ast.to.propertySignatures.map((ps) => ({ ps, type: encoded.find((each) => each.name === ps.name)?.type ?? ps.type }))
    }
    default:
      return []
  }
}

/** A field's description: its own, else its type's. */
export const fieldDescription = (ps: AST.PropertySignature, type: AST.AST): string | undefined =>
  Option.getOrUndefined(Option.orElse(AST.getDescriptionAnnotation(ps), () => AST.getDescriptionAnnotation(type)))
