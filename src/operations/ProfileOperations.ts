import * as Rpc from "@effect/rpc/Rpc"
import * as RpcGroup from "@effect/rpc/RpcGroup"
import { Schema } from "effect"
import { AlreadyExists, InvalidArgument, NotFound, Unavailable } from "../domain/Errors.js"
import { ProfileId } from "../domain/Ids.js"
import { ListProfilesRequest, ListProfilesResponse, Profile } from "../domain/Profile.js"
import type { OperationHandlers } from "./Operation.js"
import { wireShape } from "./WireShape.js"

/** The payload that names one record. */
export const ProfileRef = Schema.Struct({ id: ProfileId })

/** The profile service's operations, declared once for every style (see OrgOperations). */
export class ProfileOperations extends RpcGroup.make(
  Rpc.make("CreateProfile", {
    payload: wireShape(Profile),
    success: Profile,
    error: Schema.Union(InvalidArgument, AlreadyExists, Unavailable)
  }),
  Rpc.make("GetProfile", {
    payload: wireShape(ProfileRef),
    success: Profile,
    error: Schema.Union(InvalidArgument, NotFound, Unavailable)
  }),
  Rpc.make("ListProfiles", {
    payload: wireShape(ListProfilesRequest),
    success: ListProfilesResponse,
    error: Schema.Union(InvalidArgument, Unavailable)
  })
) {}

/** What a style adapter needs in its context to run these operations. */
export type ProfileHandlers = OperationHandlers<RpcGroup.Rpcs<typeof ProfileOperations>>
