import {
  type DocumentNode,
  type GraphQLError,
  type GraphQLSchema,
  parse,
  validate,
  type ValidationRule
} from "./GraphqlJs.js"

/**
 * Clients send the same few operations over and over; parsing and validating each one again cost
 * more than running it (profiled). So a document that passed validation is kept by its text, with
 * its (empty) list of validation errors: graphql-js never mutates a document, and one handler's
 * schema and rules do not change. Only valid documents are kept — a client cannot fill the cache
 * with operations the limits refuse — and the cache is bounded by entries and by the total length
 * of the texts it holds (a document takes far more memory than its text), oldest first out.
 *
 * A text the cache does not know goes through `parseText` (bounds on the text, see boundedParse),
 * and its document through `screen` before graphql-js's rules: what `screen` refuses (the query
 * limits, linear in the document) never reaches rules that cost more than linear time.
 */
export const documentCache = (options: {
  readonly schema: GraphQLSchema
  readonly maxEntries: number
  readonly maxTotalLength: number
  readonly maxQueryLength: number
  readonly parseText?: (text: string) => DocumentNode
  readonly screen?: (document: DocumentNode) => ReadonlyArray<GraphQLError>
}) => {
  const parseText = options.parseText ?? ((text: string) => parse(text))
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

  // graphql-http hands over the query as a string, without options.
  const cachedParse = ((source: Parameters<typeof parse>[0]) => {
    const text = typeof source === "string" ? source : source.body
    if (text.length > options.maxQueryLength) return parseText(text)
    const known = documents.get(text)
    if (known !== undefined) return known
    const document = parseText(text)
    parsedFrom.set(document, text)
    return document
  }) as typeof parse

  const cachedValidate = ((schema: GraphQLSchema, document: DocumentNode, rules?: ReadonlyArray<ValidationRule>) => {
    if (schema === options.schema && valid.has(document)) return []
    const refused = options.screen?.(document) ?? []
    if (refused.length > 0) return refused
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
