import type { DocumentNode, FragmentDefinitionNode, OperationDefinitionNode, SelectionSetNode } from "./GraphqlJs.js"
import { GraphQLError } from "./GraphqlJs.js"
import { errorTable } from "../ErrorTable.js"

/** Bounds on what one operation may ask for (GRAPHQL_MAX_DEPTH, GRAPHQL_MAX_FIELDS). */
export interface QueryLimits {
  readonly maxDepth: number
  readonly maxFields: number
}

/** A definition with its fragments expanded: field nesting (the root counts 1) and fields selected. */
export interface Cost {
  readonly depth: number
  readonly fields: number
}

/**
 * Counts stop here. A few hundred bytes of fragments that each spread the next one twice stand
 * for 2^n fields; past any sensible limit the exact figure only costs arithmetic and says nothing.
 */
export const countCap = 1_000_000

const plus = (a: number, b: number) => Math.min(a + b, countCap)

type Definition = OperationDefinitionNode | FragmentDefinitionNode

/**
 * Each operation's and each fragment's cost, in time linear in the document: a fragment is
 * measured once and its cost reused at every spread of it (expanding spreads where they stand is
 * 2^n work for n fragments that each spread the next one twice). A spread of an unknown fragment counts nothing, as does one of a
 * fragment still being measured: that is a cycle, NoFragmentCyclesRule's error to report. The
 * recursion goes as deep as the document nests and its fragments chain, both bounded by the
 * token count before a document gets here (documentBounds).
 */
export const definitionCosts = (document: DocumentNode): ReadonlyMap<Definition, Cost> => {
  const fragments = new Map<string, FragmentDefinitionNode>()
  for (const definition of document.definitions) {
    if (definition.kind === "FragmentDefinition" && !fragments.has(definition.name.value)) {
      fragments.set(definition.name.value, definition)
    }
  }
  const measured = new Map<string, Cost>()
  const measuring = new Set<string>()

  const fragmentCost = (name: string): Cost | undefined => {
    const known = measured.get(name)
    if (known !== undefined) return known
    const fragment = fragments.get(name)
    if (fragment === undefined || measuring.has(name)) return undefined
    measuring.add(name)
    const cost = selectionSetCost(fragment.selectionSet)
    measuring.delete(name)
    measured.set(name, cost)
    return cost
  }

  // Depth here is the levels below the selection set; a definition's own level is added at the end.
  const selectionSetCost = (selectionSet: SelectionSetNode): Cost => {
    let depth = 0
    let fields = 0
    for (const selection of selectionSet.selections) {
      let inner: Cost | undefined
      if (selection.kind === "Field") {
        fields = plus(fields, 1)
        if (selection.selectionSet !== undefined) {
          const below = selectionSetCost(selection.selectionSet)
          inner = { depth: plus(below.depth, 1), fields: below.fields }
        }
      } else if (selection.kind === "InlineFragment") {
        inner = selectionSetCost(selection.selectionSet)
      } else {
        inner = fragmentCost(selection.name.value)
      }
      if (inner !== undefined) {
        depth = Math.max(depth, inner.depth)
        fields = plus(fields, inner.fields)
      }
    }
    return { depth, fields }
  }

  const costs = new Map<Definition, Cost>()
  for (const definition of document.definitions) {
    if (definition.kind === "OperationDefinition") {
      const { depth, fields } = selectionSetCost(definition.selectionSet)
      costs.set(definition, { depth: plus(depth, 1), fields })
    } else if (definition.kind === "FragmentDefinition") {
      // A second fragment of the same name (UniqueFragmentNamesRule's error) is measured too.
      const own = fragments.get(definition.name.value) === definition ? fragmentCost(definition.name.value) : undefined
      const { depth, fields } = own ?? selectionSetCost(definition.selectionSet)
      costs.set(definition, { depth: plus(depth, 1), fields })
    }
  }
  return costs
}

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
  for (const [definition, { depth, fields }] of definitionCosts(document)) {
    if (errors.length >= maxErrors) break
    const subject = definition.kind === "OperationDefinition" ? "the operation" : `fragment ${definition.name.value}`
    if (depth > limits.maxDepth) {
      errors.push(
        new GraphQLError(`${subject} is ${figure(depth)} levels deep; at most ${limits.maxDepth} are allowed`, {
          nodes: definition,
          extensions
        })
      )
    }
    if (fields > limits.maxFields) {
      errors.push(
        new GraphQLError(`${subject} selects ${figure(fields)} fields; at most ${limits.maxFields} are allowed`, {
          nodes: definition,
          extensions
        })
      )
    }
  }
  return errors
}
