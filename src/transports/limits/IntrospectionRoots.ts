import { type DocumentNode, GraphQLError } from "../graphql/GraphqlJs.js"
import { errorTable } from "../ErrorTable.js"
import { countCap, rootFieldCounts } from "./QueryCost.js"

/**
 * How many `__schema` and `__type` fields one operation may select at its root, aliases and
 * fragments on the root included. The introspection limits (introspectionLimits) bound the fields
 * below them, but a `__schema { types { name fields { name } } }` is small to ask and walks the
 * whole schema to answer: many aliased copies of it fit within those limits and cost far more
 * than anything else a caller without the token may ask (docs/reliability.md §2d).
 * The standard introspection query that GraphiQL and code generators send selects one `__schema`;
 * a tool that asks for types by name asks for a few.
 */
export const maxSchemaFields = 1
export const maxTypeFields = 5

const bounds = [["__schema", maxSchemaFields], ["__type", maxTypeFields]] as const

/**
 * The errors of a document whose operations select more `__schema` or `__type` root fields than
 * allowed: INVALID_ARGUMENT, an operation no client needs. Linear in the document.
 */
export const introspectionRootErrors = (document: DocumentNode): ReadonlyArray<GraphQLError> => {
  const errors: Array<GraphQLError> = []
  for (const [field, max] of bounds) {
    for (const [operation, count] of rootFieldCounts(document, (name) => name === field)) {
      if (count <= max) continue
      const figure = count >= countCap ? `${countCap} or more` : `${count}`
      errors.push(
        new GraphQLError(
          `the operation selects ${field} ${figure} times at its root (aliases and fragments included); at most ${max} ${
            max === 1 ? "is" : "are"
          } allowed`,
          { nodes: operation, extensions: { code: errorTable.InvalidArgument.graphql } }
        )
      )
    }
  }
  return errors
}
