import type { DocumentNode } from "../graphql/GraphqlJs.js"
import { GraphQLError } from "../graphql/GraphqlJs.js"
import { errorTable } from "../ErrorTable.js"
import { countCap, type Definition, definitionCosts, type Measure, rootCalls } from "./QueryCost.js"

export { type Cost, countCap, definitionCosts, type Measure, rootCalls } from "./QueryCost.js"

/** Bounds on what one operation may ask for (GRAPHQL_MAX_DEPTH, GRAPHQL_MAX_FIELDS, GRAPHQL_MAX_CALLS). */
export interface QueryLimits {
  readonly maxDepth: number
  readonly maxFields: number
  /** Service calls: fields at the operation's root (see rootCalls); unbounded if unset. */
  readonly maxCalls?: number
}

/**
 * The bounds on the introspection track: the standard query with every option (230 fields, 15
 * levels) fits with room to spare, two copies of it do not, and the document bounds
 * (DocumentBounds.ts) hold the text to what such a query needs.
 */
export const introspectionLimits: QueryLimits = { maxDepth: 20, maxFields: 300 }

/** Each error computes its line and column from the text: a few say enough, hundreds cost time. */
const maxErrors = 10

const figure = (count: number) => (count >= countCap ? `${countCap} or more` : `${count}`)

/**
 * The limits' errors for a document, RESOURCE_EXHAUSTED. Fragments are held to the same bounds as
 * operations: any use of one costs at least as much as the fragment does alone, and an unused one
 * is refused anyway (NoUnusedFragmentsRule) — but checked here it never reaches graphql-js's own
 * rules, some of which cost more than linear time in the fields a selection set holds.
 */
export const limitErrors = (document: DocumentNode, limits: QueryLimits): ReadonlyArray<GraphQLError> => {
  const errors: Array<GraphQLError> = []
  const extensions = { code: errorTable.ResourceExhausted.graphql }
  const check = (definition: Definition, measure: Measure, bounds: QueryLimits, what: string) => {
    const subject = definition.kind === "OperationDefinition" ? `the operation${what}` : `fragment ${definition.name.value}${what}`
    if (measure.depth > bounds.maxDepth) {
      errors.push(
        new GraphQLError(`${subject} is ${figure(measure.depth)} levels deep; at most ${bounds.maxDepth} are allowed`, {
          nodes: definition,
          extensions
        })
      )
    }
    if (measure.fields > bounds.maxFields) {
      errors.push(
        new GraphQLError(`${subject} selects ${figure(measure.fields)} fields; at most ${bounds.maxFields} are allowed`, {
          nodes: definition,
          extensions
        })
      )
    }
  }
  for (const [definition, cost] of definitionCosts(document)) {
    if (errors.length >= maxErrors) break
    check(definition, cost, limits, "")
    check(definition, cost.introspection, introspectionLimits, "'s introspection")
  }
  const maxCalls = limits.maxCalls
  if (maxCalls !== undefined) {
    for (const [operation, calls] of rootCalls(document)) {
      if (errors.length >= maxErrors) break
      if (calls > maxCalls) {
        errors.push(
          new GraphQLError(
            `the operation makes ${figure(calls)} service calls (fields at its root, aliases included); at most ${maxCalls} are allowed`,
            { nodes: operation, extensions }
          )
        )
      }
    }
  }
  return errors
}
