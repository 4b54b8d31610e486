import { Option, Schema, SchemaAST } from "effect"

/**
 * The one place each field is described: OpenAPI (so Swagger UI), GraphQL's schema and the proto
 * comments read it from here.
 *
 * A record with a transformed field (`optionalDescribed`'s null) is a transformation, and JSON
 * Schema (so OpenAPI) writes its encoded side: the fields' types, without the fields' own
 * annotations, and without a refinement's annotations unless the refinement has a `jsonSchema`
 * annotation. So the description and examples go on the field's type, with a `jsonSchema`
 * annotation that makes JSON Schema write them whatever the type is; and on the field, for a
 * record without a transformed field. The same type (an id) means other things in other fields,
 * so each field annotates its own copy.
 */

/** The words for a limit that a rule states as a JSON Schema keyword (`Schema.maxLength(64)`'s `maxLength: 64`). */
const limitWords: Readonly<Record<string, (limit: number) => string>> = {
  minLength: (n) => `at least ${n} characters`,
  maxLength: (n) => `at most ${n} characters`,
  minItems: (n) => `at least ${n} items`,
  maxItems: (n) => `at most ${n} items`,
  minimum: (n) => `at least ${n}`,
  maximum: (n) => `at most ${n}`
}

/**
 * Each limit a schema's rules state, in words, in the order they are written
 * (`Schema.String.pipe(Schema.maxLength(64))`: "at most 64 characters"): a limit is written once,
 * in the schema, and its words are read from there (for a description, or a rule's message).
 */
export const limitsInWords = (ast: SchemaAST.AST): ReadonlyArray<string> => {
  if (ast._tag !== "Refinement") return []
  const keywords: object = Option.getOrElse(SchemaAST.getJSONSchemaAnnotation(ast), () => ({}))
  const own = Object.entries(keywords).flatMap(([keyword, limit]: [string, unknown]) => {
    const words = limitWords[keyword]
    return typeof limit === "number" && words !== undefined ? [words(limit)] : []
  })
  return [...limitsInWords(ast.from), ...own]
}

/** A description followed by the limits the schema states ("what the person likes to be called: at most 64 characters"). */
const withLimits = (ast: SchemaAST.AST, description: string) => {
  const limits = limitsInWords(ast)
  return limits.length === 0 ? description : `${description}: ${limits.join(", ")}`
}

/** What a field may declare besides its description: its examples (documentation only: Swagger UI fills them in). */
export type FieldAnnotations<A> = { readonly examples?: readonly [A, ...Array<A>] }

/**
 * A type with a field's description (and examples) where every JSON Schema of it reads them. A
 * refinement's are written only when it has a `jsonSchema` annotation: its rule's, kept, or an
 * empty one (other types' annotations are written as they are).
 */
export const documented = <S extends Schema.Schema.Any>(
  schema: S,
  description: string,
  annotations: FieldAnnotations<Schema.Schema.Type<S>> = {}
): Schema.Schema<Schema.Schema.Type<S>, Schema.Schema.Encoded<S>, Schema.Schema.Context<S>> =>
  Schema.make(SchemaAST.annotations(schema.ast, {
    [SchemaAST.DescriptionAnnotationId]: description,
    ...(annotations.examples === undefined ? {} : { [SchemaAST.ExamplesAnnotationId]: annotations.examples }),
    ...(schema.ast._tag === "Refinement"
      ? { [SchemaAST.JSONSchemaAnnotationId]: Option.getOrElse(SchemaAST.getJSONSchemaAnnotation(schema.ast), () => ({})) }
      : {})
  }))

/** A field with its description, and the words of the limits its rules state. */
export const described = <A, I, R>(schema: Schema.Schema<A, I, R>, description: string, annotations: FieldAnnotations<A> = {}) => {
  const full = withLimits(schema.ast, description)
  return Schema.propertySignature(documented(schema, full, annotations)).annotations({ description: full, ...annotations })
}

/**
 * An optional field with its description: absent, or `null` as JSON and GraphQL clients send and
 * as SQL stores it, both read as absent (so a column added to a table reads back as the field left
 * out).
 */
export const optionalDescribed = <A, I, R>(schema: Schema.Schema<A, I, R>, description: string, annotations: FieldAnnotations<A> = {}) => {
  const full = withLimits(schema.ast, description)
  return Schema.optionalWith(documented(schema, full, annotations), { exact: true, nullable: true }).annotations({ description: full, ...annotations })
}

/**
 * A record's class annotations: its description, and its name on the class's transformation too.
 * A record whose encoded side is not a plain struct (a transformed field, a rule across fields) is
 * otherwise written inline by JSON Schema, without its name, so OpenAPI would lose its component.
 */
export const record = (identifier: string, description: string) => [{ description }, { identifier, description }] as const
