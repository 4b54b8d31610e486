import * as Rpc from "@effect/rpc/Rpc"
import * as RpcGroup from "@effect/rpc/RpcGroup"
import { Schema } from "effect"
import { AlreadyExists, InvalidArgument, NotFound, Unavailable } from "../domain/Errors.js"
import { OrgId } from "../domain/Ids.js"
import { ListOrgsRequest, ListOrgsResponse, Org } from "../domain/Org.js"
import type { OperationHandlers } from "./Operation.js"
import { wireShape } from "./WireShape.js"

/** The payload that names one record. */
export const OrgRef = Schema.Struct({ id: OrgId })

/**
 * The org service's operations, declared once: each style (Connect and gRPC, REST, GraphQL,
 * `/rpc`) derives its handlers from this table and adds only its own wire form. The handlers are
 * apart, in OrgOperationsLive.ts, so that the client package carries no server code.
 */
export class OrgOperations extends RpcGroup.make(
  Rpc.make("CreateOrg", {
    payload: wireShape(Org),
    success: Org,
    error: Schema.Union(InvalidArgument, AlreadyExists, Unavailable)
  }),
  Rpc.make("GetOrg", {
    payload: wireShape(OrgRef),
    success: Org,
    error: Schema.Union(InvalidArgument, NotFound, Unavailable)
  }),
  Rpc.make("ListOrgs", {
    payload: wireShape(ListOrgsRequest),
    success: ListOrgsResponse,
    error: Schema.Union(InvalidArgument, Unavailable)
  })
) {}

/** What a style adapter needs in its context to run these operations. */
export type OrgHandlers = OperationHandlers<RpcGroup.Rpcs<typeof OrgOperations>>
