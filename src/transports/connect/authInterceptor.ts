import { ConnectError, type Interceptor } from "@connectrpc/connect"
import { type BearerCheck, unauthenticatedMessage } from "../Auth.js"
import { errorTable } from "../ErrorTable.js"

/**
 * Bearer-token authentication for Connect, gRPC and gRPC-Web alike (the token travels as the
 * `authorization` header or metadata), except for the services named open (health).
 */
export const requireBearer = (check: BearerCheck, openServices: ReadonlyArray<string>): Interceptor => (next) => (request) => {
  if (!openServices.includes(request.service.typeName) && !check(request.header.get("authorization") ?? undefined)) {
    throw new ConnectError(unauthenticatedMessage, errorTable.Unauthenticated.connect)
  }
  return next(request)
}
