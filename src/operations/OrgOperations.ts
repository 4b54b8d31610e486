import * as Rpc from "@effect/rpc/Rpc"
import * as RpcGroup from "@effect/rpc/RpcGroup"
import { Effect, Schema } from "effect"
import { AlreadyExists, InvalidArgument, NotFound, Unavailable } from "../domain/Errors.js"
import { OrgId } from "../domain/Ids.js"
import { Org } from "../domain/Org.js"
import { Orgs } from "../services/Orgs.js"

/**
 * The org service's operations, declared once: each style (Connect and gRPC, REST, GraphQL,
 * `/rpc`) derives its handlers from this table and adds only its own wire form.
 */
export class OrgOperations extends RpcGroup.make(
  Rpc.make("CreateOrg", {
    payload: Org,
    success: Org,
    error: Schema.Union(InvalidArgument, AlreadyExists, Unavailable)
  }),
  Rpc.make("GetOrg", {
    payload: { id: OrgId },
    success: Org,
    error: Schema.Union(InvalidArgument, NotFound, Unavailable)
  })
) {}

export const OrgOperationsLive = OrgOperations.toLayer(Effect.gen(function*() {
  const orgs = yield* Orgs
  return {
    CreateOrg: (org) => orgs.create(org),
    GetOrg: ({ id }) => orgs.get(id)
  }
}))
