import { Option, Schema, SchemaAST } from "effect"

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

const annotate = (ast: SchemaAST.AST, from: SchemaAST.Annotated, also: SchemaAST.Annotated): SchemaAST.AST => {
  const description = Option.orElse(SchemaAST.getDescriptionAnnotation(from), () => SchemaAST.getDescriptionAnnotation(also))
  const examples = Option.orElse(SchemaAST.getExamplesAnnotation(from), () => SchemaAST.getExamplesAnnotation(also))
  return SchemaAST.annotations(ast, {
    ...Option.match(description, { onNone: () => ({}), onSome: (text) => ({ [SchemaAST.DescriptionAnnotationId]: text }) }),
    ...Option.match(examples, { onNone: () => ({}), onSome: (values) => ({ [SchemaAST.ExamplesAnnotationId]: values }) })
  })
}

/** `encoded` (a part of a schema's encoded side) with the descriptions and examples of `typed`, the same part's type side. */
const documentedAst = (encoded: SchemaAST.AST, typed: SchemaAST.AST): SchemaAST.AST => {
  if (encoded._tag === "Union" && typed._tag === "Union" && encoded.types.length === typed.types.length) {
    return SchemaAST.Union.make(encoded.types.map((member, i) => documentedAst(member, typed.types[i]!)), encoded.annotations)
  }
  if (encoded._tag !== "TypeLiteral") return encoded
  const fields = new Map(recordFields(typed).map((field) => [field.ps.name, field]))
  const signatures = encoded.propertySignatures.map((ps) => {
    const field = fields.get(ps.name)
    if (field === undefined) return ps
    const type = annotate(documentedAst(ps.type, field.type), field.ps, field.type)
    return new SchemaAST.PropertySignature(ps.name, type, ps.isOptional, ps.isReadonly, ps.annotations)
  })
  return new SchemaAST.TypeLiteral(signatures, encoded.indexSignatures, encoded.annotations)
}

/**
 * A schema's encoded side (`Schema.encodedSchema`: the wire shape, no rule checked) with each
 * field's description and examples, which `encodedSchema` drops: what a body's document says.
 */
export const documentedEncoded = <A, I, R>(schema: Schema.Schema<A, I, R>): Schema.Schema<I> =>
  Schema.make(documentedAst(Schema.encodedSchema(schema).ast, schema.ast))
