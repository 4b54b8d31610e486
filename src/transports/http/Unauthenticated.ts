import { unauthenticatedMessage } from "../Auth.js"
import { errorTable } from "../ErrorTable.js"
import type { Request, Response } from "./PortListener.js"
import { refuse } from "./Refusal.js"

/**
 * The answer to a call without a valid token, in the caller's own protocol (Connect 401 JSON,
 * gRPC and gRPC-Web status 16, REST and `/rpc` 401 `{code, message, details}`, GraphQL 401
 * `errors[]`). Given before any of the body is read: a caller without the token must not be able
 * to hold a request open by sending it slowly.
 */
export const unauthenticated = (request: Request, response: Response) =>
  refuse(request, response, {
    kind: errorTable.Unauthenticated,
    message: unauthenticatedMessage,
    headers: { "www-authenticate": "Bearer" }
  })
