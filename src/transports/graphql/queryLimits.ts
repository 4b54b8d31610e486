import type { FragmentDefinitionNode, SelectionSetNode, ValidationContext, ValidationRule } from "./graphqlJs.js"
import { GraphQLError } from "./graphqlJs.js"

/**
 * Bounds on what one operation may ask for, so a small request cannot make the server do
 * unbounded work: nesting depth, and fields selected in all (aliases count, fragments expanded).
 * A fragment cycle is another rule's error; the walk just stops at a fragment already on its path.
 */
const measure = (
  selectionSet: SelectionSetNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  path: ReadonlySet<string>
): { depth: number; fields: number } => {
  let depth = 0
  let fields = 0
  for (const selection of selectionSet.selections) {
    let inner: { depth: number; fields: number } | undefined
    if (selection.kind === "Field") {
      fields += 1
      if (selection.selectionSet !== undefined) {
        const below = measure(selection.selectionSet, fragments, path)
        inner = { depth: below.depth + 1, fields: below.fields }
      }
    } else if (selection.kind === "InlineFragment") {
      inner = measure(selection.selectionSet, fragments, path)
    } else {
      const fragment = fragments.get(selection.name.value)
      if (fragment !== undefined && !path.has(fragment.name.value)) {
        inner = measure(fragment.selectionSet, fragments, new Set([...path, fragment.name.value]))
      }
    }
    if (inner !== undefined) {
      depth = Math.max(depth, inner.depth)
      fields += inner.fields
    }
  }
  return { depth, fields }
}

export const queryLimits = (limits: { readonly maxDepth: number; readonly maxFields: number }): ValidationRule =>
(context: ValidationContext) => {
  const fragments = new Map(
    context.getDocument().definitions.flatMap((d) => (d.kind === "FragmentDefinition" ? [[d.name.value, d] as const] : []))
  )
  return {
    OperationDefinition(operation) {
      const { depth, fields } = measure(operation.selectionSet, fragments, new Set())
      const extensions = { code: "RESOURCE_EXHAUSTED" }
      if (depth + 1 > limits.maxDepth) {
        context.reportError(
          new GraphQLError(`the operation is ${depth + 1} levels deep; at most ${limits.maxDepth} are allowed`, {
            nodes: operation,
            extensions
          })
        )
      }
      if (fields > limits.maxFields) {
        context.reportError(
          new GraphQLError(`the operation selects ${fields} fields; at most ${limits.maxFields} are allowed`, {
            nodes: operation,
            extensions
          })
        )
      }
    }
  }
}
