import type { DocumentNode, FragmentDefinitionNode, OperationDefinitionNode, SelectionSetNode } from "./GraphqlJs.js"

/** The root fields that read the schema alone: nothing below them reaches a resolver of ours. */
const schemaFields = new Set(["__schema", "__type", "__typename"])

/**
 * Whether the operation a request runs (`operationName`'s, or the document's only one) reads the
 * schema alone: every field at its root, through fragments and inline fragments, is `__schema`,
 * `__type` or `__typename`. A document whose operation graphql-js could not pick (none, or several
 * and no name) is not. Linear in the document: each fragment is looked into once (a second spread
 * of it, or a cycle, adds nothing; validation reports cycles and unknown fragments).
 */
export const introspectionOnly = (document: DocumentNode, operationName?: string | null): boolean => {
  const operations = document.definitions.filter((definition): definition is OperationDefinitionNode =>
    definition.kind === "OperationDefinition"
  )
  const operation = operationName === undefined || operationName === null
    ? operations.length === 1 ? operations[0] : undefined
    : operations.find((each) => each.name?.value === operationName)
  if (operation === undefined) return false
  const fragments = new Map<string, FragmentDefinitionNode>()
  for (const definition of document.definitions) {
    if (definition.kind === "FragmentDefinition" && !fragments.has(definition.name.value)) {
      fragments.set(definition.name.value, definition)
    }
  }
  const looked = new Set<string>()
  const schemaOnly = (selectionSet: SelectionSetNode): boolean =>
    selectionSet.selections.every((selection) => {
      if (selection.kind === "Field") return schemaFields.has(selection.name.value)
      if (selection.kind === "InlineFragment") return schemaOnly(selection.selectionSet)
      const name = selection.name.value
      if (looked.has(name)) return true
      looked.add(name)
      const fragment = fragments.get(name)
      return fragment !== undefined && schemaOnly(fragment.selectionSet)
    })
  return schemaOnly(operation.selectionSet)
}
