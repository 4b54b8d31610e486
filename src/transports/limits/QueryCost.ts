import type { DocumentNode, FragmentDefinitionNode, OperationDefinitionNode, SelectionSetNode } from "../graphql/GraphqlJs.js"

/*
 * What a GraphQL document asks for, measured from its text before anything runs: each
 * definition's depth and fields (definitionCosts) and each operation's service calls
 * (rootCalls). QueryLimits.ts holds the bounds these are checked against.
 */

/** A depth (field nesting; an operation's root counts 1) and a count of fields selected. */
export interface Measure {
  readonly depth: number
  readonly fields: number
}

/**
 * A definition with its fragments expanded, on two tracks: what it asks of the service's own
 * types, and what it asks of the schema's introspection (below `__schema` and `__type`, and in
 * fragments on the `__` types), which tools send as one large standard query: graphql-js's
 * `getIntrospectionQuery()` (GraphiQL, code generators) is 15 levels and 220 fields, past any
 * sensible bound for the service's own types. Introspection is held to bounds of its own
 * (introspectionLimits, in QueryLimits.ts), and graphql-js's MaxIntrospectionDepthRule stops its
 * recursive lists.
 */
export interface Cost extends Measure {
  readonly introspection: Measure
}

/**
 * Counts stop here. A few hundred bytes of fragments that each spread the next one twice stand
 * for 2^n fields; past any sensible limit the exact figure only costs arithmetic and says nothing.
 */
export const countCap = 1_000_000

const plus = (a: number, b: number) => Math.min(a + b, countCap)

const zero: Measure = { depth: 0, fields: 0 }

/** Siblings: the deeper one's depth, every field. */
const beside = (a: Measure, b: Measure): Measure => ({ depth: Math.max(a.depth, b.depth), fields: plus(a.fields, b.fields) })

export type Definition = OperationDefinitionNode | FragmentDefinitionNode

const introspectionFields = new Set(["__schema", "__type"])

/** Fragments on `__Type`, `__Field`, ...: only introspection can use them. */
const onIntrospectionType = (typeCondition: { readonly name: { readonly value: string } } | undefined) =>
  typeCondition?.name.value.startsWith("__") === true

/**
 * Each operation's and each fragment's cost, in time linear in the document: a fragment is
 * measured once and its cost reused at every spread of it (expanding spreads where they stand is
 * 2^n work for n fragments that each spread the next one twice). A spread of an unknown fragment counts nothing, as does one of a
 * fragment still being measured: that is a cycle, NoFragmentCyclesRule's error to report. The
 * recursion goes as deep as the document nests and its fragments chain, both bounded by the
 * token count before a document gets here (documentBounds). A fragment's track is its own (its
 * type condition's), wherever it is spread.
 *
 * `visited`, if given, is called once for each selection measured: the work done, counted, so a
 * test can hold it to the document's size without timing it. Each selection of the document is
 * measured at most once; expanding spreads would measure a fragment's selections once per path to
 * it. The server passes nothing.
 */
export const definitionCosts = (document: DocumentNode, visited?: () => void): ReadonlyMap<Definition, Cost> => {
  const fragments = new Map<string, FragmentDefinitionNode>()
  for (const definition of document.definitions) {
    if (definition.kind === "FragmentDefinition" && !fragments.has(definition.name.value)) {
      fragments.set(definition.name.value, definition)
    }
  }
  const measured = new Map<string, Cost>()
  const measuring = new Set<string>()

  const fragmentCost = (fragment: FragmentDefinitionNode): Cost => {
    const introspective = onIntrospectionType(fragment.typeCondition)
    return selectionSetCost(fragment.selectionSet, introspective)
  }

  const spreadCost = (name: string): Cost | undefined => {
    const known = measured.get(name)
    if (known !== undefined) return known
    const fragment = fragments.get(name)
    if (fragment === undefined || measuring.has(name)) return undefined
    measuring.add(name)
    const cost = fragmentCost(fragment)
    measuring.delete(name)
    measured.set(name, cost)
    return cost
  }

  // Depth here is the levels below the selection set; a definition's own level is added at the end.
  const selectionSetCost = (selectionSet: SelectionSetNode, introspective: boolean): Cost => {
    let own = zero
    let introspection = zero
    const add = (inner: Cost) => {
      own = beside(own, inner)
      introspection = beside(introspection, inner.introspection)
    }
    for (const selection of selectionSet.selections) {
      visited?.()
      if (selection.kind === "Field") {
        // `__schema` and `__type` open the introspection track, and count on it.
        const track = introspective || introspectionFields.has(selection.name.value)
        const below = selection.selectionSet === undefined
          ? { ...zero, introspection: zero }
          : selectionSetCost(selection.selectionSet, track)
        const level = (measure: Measure): Measure => ({
          depth: selection.selectionSet === undefined ? 0 : plus(measure.depth, 1),
          fields: plus(measure.fields, 1)
        })
        add(track
          ? { ...zero, introspection: level(below.introspection) }
          : { ...level(below), introspection: below.introspection })
      } else if (selection.kind === "InlineFragment") {
        add(selectionSetCost(selection.selectionSet, introspective || onIntrospectionType(selection.typeCondition)))
      } else {
        const spread = spreadCost(selection.name.value)
        if (spread !== undefined) add(spread)
      }
    }
    return { ...own, introspection }
  }

  /** A definition's own level: the root of an operation, the type of a fragment. */
  const rooted = (cost: Cost, introspective: boolean): Cost =>
    introspective
      ? { ...cost, introspection: { ...cost.introspection, depth: plus(cost.introspection.depth, 1) } }
      : { ...cost, depth: plus(cost.depth, 1) }

  const costs = new Map<Definition, Cost>()
  for (const definition of document.definitions) {
    if (definition.kind === "OperationDefinition") {
      costs.set(definition, rooted(selectionSetCost(definition.selectionSet, false), false))
    } else if (definition.kind === "FragmentDefinition") {
      // A second fragment of the same name (UniqueFragmentNamesRule's error) is measured too.
      const own = fragments.get(definition.name.value) === definition ? spreadCost(definition.name.value) : undefined
      costs.set(definition, rooted(own ?? fragmentCost(definition), onIntrospectionType(definition.typeCondition)))
    }
  }
  return costs
}

/**
 * GRAPHQL_MAX_CALLS: each field at an operation's root is one call of the service's operations
 * (one SQL statement for a read or a page of a list, a few for a create, a transaction for a
 * workflow); nothing below the root calls anything. Fragments and inline fragments at the root
 * count their own root fields, each fragment measured once. `__typename`, `__schema` and `__type`
 * call nothing and count nothing. Two fields with one response key are counted twice though
 * graphql-js runs them once: the count is an upper bound, read from the document before anything
 * runs, so a refused operation makes no call at all.
 *
 * Why a bound besides depth and fields: 33 lists of 100 rows fit in 100 fields, and answering them
 * — rows read from the database, turned into objects, serialised — kept the event loop, and every
 * port of the process, busy many times longer than any call these APIs make (docs/reliability.md
 * §2g has the times, and why the default is 5).
 */
export const rootCalls = (document: DocumentNode): ReadonlyMap<OperationDefinitionNode, number> =>
  rootFieldCounts(document, (name) => !name.startsWith("__"))

/**
 * Each operation's fields at its root that `counts` (by field name), aliases included: each is
 * resolved on its own. Fragments and inline fragments at the root count their own root fields,
 * each fragment measured once; a spread of an unknown or cyclic fragment (graphql-js's rules
 * refuse the document) counts nothing.
 */
export const rootFieldCounts = (
  document: DocumentNode,
  counts: (fieldName: string) => boolean
): ReadonlyMap<OperationDefinitionNode, number> => {
  const fragments = new Map<string, FragmentDefinitionNode>()
  for (const definition of document.definitions) {
    if (definition.kind === "FragmentDefinition" && !fragments.has(definition.name.value)) {
      fragments.set(definition.name.value, definition)
    }
  }
  const counted = new Map<string, number>()
  const counting = new Set<string>()
  const countIn = (selectionSet: SelectionSetNode): number => {
    let count = 0
    for (const selection of selectionSet.selections) {
      if (selection.kind === "Field") {
        if (counts(selection.name.value)) count = plus(count, 1)
      } else if (selection.kind === "InlineFragment") {
        count = plus(count, countIn(selection.selectionSet))
      } else {
        const name = selection.name.value
        const fragment = fragments.get(name)
        if (fragment === undefined || counting.has(name)) continue
        if (!counted.has(name)) {
          counting.add(name)
          counted.set(name, countIn(fragment.selectionSet))
          counting.delete(name)
        }
        count = plus(count, counted.get(name)!)
      }
    }
    return count
  }
  const byOperation = new Map<OperationDefinitionNode, number>()
  for (const definition of document.definitions) {
    if (definition.kind === "OperationDefinition") byOperation.set(definition, countIn(definition.selectionSet))
  }
  return byOperation
}
