/** The GraphQL transport: one schema per port (contract §6) and the HTTP endpoint that serves it. */
export type { GraphqlApi } from "./GraphqlApi.js"
export { graphqlHandler, type GraphqlHandlerOptions } from "./GraphqlHandler.js"
export { licenseGraphql, orgGraphql, profileGraphql, workflowGraphql } from "./PortSchemas.js"
