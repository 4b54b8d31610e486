import { unauthenticatedMessage } from "../Auth.js"
import { errorTable } from "../ErrorTable.js"
import type { Response } from "./PortListener.js"

/** The 401 of REST and `/rpc` (`{code, message, details}`) or of GraphQL (`errors[]` with its code). */
export const unauthenticated = (response: Response, style: "json" | "graphql") => {
  const { graphql, grpc, http } = errorTable.Unauthenticated
  const body = style === "graphql"
    ? { errors: [{ message: unauthenticatedMessage, extensions: { code: graphql } }] }
    : { code: grpc, message: unauthenticatedMessage, details: [] }
  response.writeHead(http, { "content-type": "application/json", "www-authenticate": "Bearer" })
  response.end(JSON.stringify(body))
}
