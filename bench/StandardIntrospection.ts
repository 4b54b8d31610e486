import { getIntrospectionQuery } from "graphql"

/** graphql-js's standard introspection query with every option on: what GraphiQL and code generators send, at its largest. */
export const standardIntrospection = getIntrospectionQuery({
  descriptions: true,
  specifiedByUrl: true,
  directiveIsRepeatable: true,
  schemaDescription: true,
  inputValueDeprecation: true,
  oneOf: true
})
