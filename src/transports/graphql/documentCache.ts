import { type DocumentNode, type GraphQLSchema, parse, validate, type ValidationRule } from "./graphqlJs.js"

/**
 * Clients send the same few operations over and over; parsing and validating each one again cost
 * more than running it (profiled). So a document that passed validation is kept by its text, with
 * its (empty) list of validation errors: graphql-js never mutates a document, and one handler's
 * schema and rules do not change. Only valid documents are kept — a client cannot fill the cache
 * with operations the limits refuse — and the cache is bounded by entries and by the total length
 * of the texts it holds (a document takes far more memory than its text), oldest first out.
 */
export const documentCache = (options: {
  readonly schema: GraphQLSchema
  readonly maxEntries: number
  readonly maxTotalLength: number
  readonly maxQueryLength: number
}) => {
  const documents = new Map<string, DocumentNode>()
  const parsedFrom = new WeakMap<DocumentNode, string>()
  const valid = new WeakSet<DocumentNode>()
  let totalLength = 0

  const keep = (source: string, document: DocumentNode) => {
    while (documents.size > 0 && (documents.size >= options.maxEntries || totalLength + source.length > options.maxTotalLength)) {
      const oldest = documents.keys().next().value!
      documents.delete(oldest)
      totalLength -= oldest.length
    }
    documents.set(source, document)
    totalLength += source.length
  }

  const cachedParse = ((source: Parameters<typeof parse>[0], parseOptions?: Parameters<typeof parse>[1]) => {
    if (typeof source !== "string" || parseOptions !== undefined || source.length > options.maxQueryLength) {
      return parse(source, parseOptions)
    }
    const known = documents.get(source)
    if (known !== undefined) return known
    const document = parse(source)
    parsedFrom.set(document, source)
    return document
  }) as typeof parse

  const cachedValidate = ((schema: GraphQLSchema, document: DocumentNode, rules?: ReadonlyArray<ValidationRule>) => {
    if (schema === options.schema && valid.has(document)) return []
    const errors = validate(schema, document, rules)
    const source = parsedFrom.get(document)
    if (schema === options.schema && errors.length === 0 && source !== undefined) {
      valid.add(document)
      keep(source, document)
    }
    return errors
  }) as typeof validate

  return { parse: cachedParse, validate: cachedValidate }
}
