import { expect } from "@effect/vitest"
import type { DocumentNode, SelectionSetNode } from "../../src/transports/graphql/GraphqlJs.js"
import { definitionCosts } from "../../src/transports/limits/QueryLimits.js"

/** The selections a document holds as written: fields, inline fragments and spreads, in every definition. */
export const selectionsIn = (document: DocumentNode) => {
  const count = (selectionSet: SelectionSetNode): number =>
    selectionSet.selections.reduce(
      (sum, s) => sum + 1 + (s.kind === "FragmentSpread" || s.selectionSet === undefined ? 0 : count(s.selectionSet)),
      0
    )
  return document.definitions.reduce(
    (sum, d) => sum + (d.kind === "OperationDefinition" || d.kind === "FragmentDefinition" ? count(d.selectionSet) : 0),
    0
  )
}

/**
 * A document's costs (QueryLimits.definitionCosts), with the work done to compute them: the
 * selections measured, and the selections the document holds. The work is what the linear-time
 * claim is about, counted rather than timed (a timing is noise on a loaded machine). Memoised, each
 * selection is measured at most once; expanded, once per path through the fragments, 2^levels for
 * fragments that each spread the next one twice. Past the document's size the count stops the
 * measure at once, so an expanding counter fails a test in milliseconds instead of running for
 * minutes.
 */
export const measuredCosts = (document: DocumentNode) => {
  const selections = selectionsIn(document)
  let visits = 0
  const costs = definitionCosts(document, () => {
    if (++visits > selections) expect.fail(`measured more than the ${selections} selections the document holds`)
  })
  return { costs, visits, selections }
}
