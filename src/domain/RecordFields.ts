import { Option, SchemaAST } from "effect"

/**
 * A record's fields as declared: each property signature with its own annotations (the type side
 * keeps them), and its type as the encoded side writes it. A record is a struct, a class, a struct
 * with a rule across fields (a refinement), one with a transformed field (a transformation of two
 * structs), or a nullable one (a union with null); anything else has no fields.
 */
export const recordFields = (ast: SchemaAST.AST): ReadonlyArray<{ readonly ps: SchemaAST.PropertySignature; readonly type: SchemaAST.AST }> => {
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
export const fieldDescription = (ps: SchemaAST.PropertySignature, type: SchemaAST.AST): string | undefined =>
  Option.getOrUndefined(Option.orElse(SchemaAST.getDescriptionAnnotation(ps), () => SchemaAST.getDescriptionAnnotation(type)))
