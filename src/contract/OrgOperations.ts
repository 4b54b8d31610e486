import * as Rpc from "@effect/rpc/Rpc"
import * as RpcGroup from "@effect/rpc/RpcGroup"
import { Schema } from "effect"
import { described } from "../domain/Described.js"
import { AlreadyExists, InvalidArgument, NotFound, Unavailable } from "../domain/Errors.js"
import { OrgId } from "../domain/Ids.js"
import { ListOrgsRequest, ListOrgsResponse, Org } from "../domain/Org.js"
import type { OperationHandlers } from "./OperationHandlers.js"
import { OperationDescription, wireShape } from "./WireShape.js"

/** The payload that names one record. */
export const OrgRef = Schema.Struct({ id: described(OrgId, "the org's id (a UUID)") })

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
  }).annotate(OperationDescription, "Creates an org under the caller's id; the same request again answers the same org"),
  Rpc.make("GetOrg", {
    payload: wireShape(OrgRef),
    success: Org,
    error: Schema.Union(InvalidArgument, NotFound, Unavailable)
  }).annotate(OperationDescription, "Reads one org by its id"),
  Rpc.make("ListOrgs", {
    payload: wireShape(ListOrgsRequest),
    success: ListOrgsResponse,
    error: Schema.Union(InvalidArgument, Unavailable)
  }).annotate(OperationDescription, "Lists orgs, newest first, a page at a time")
) {}

/** What a style adapter needs in its context to run these operations. */
export type OrgHandlers = OperationHandlers<RpcGroup.Rpcs<typeof OrgOperations>>
