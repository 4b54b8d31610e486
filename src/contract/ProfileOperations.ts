import * as Rpc from "@effect/rpc/Rpc"
import * as RpcGroup from "@effect/rpc/RpcGroup"
import { Schema } from "effect"
import { described } from "../domain/Described.js"
import { AlreadyExists, InvalidArgument, NotFound, Unavailable } from "../domain/Errors.js"
import { ProfileId } from "../domain/Ids.js"
import { ListProfilesRequest, ListProfilesResponse, Profile } from "../domain/Profile.js"
import type { OperationHandlers } from "./OperationHandlers.js"
import { OperationDescription, wireShape } from "./WireShape.js"

/** The payload that names one record. */
export const ProfileRef = Schema.Struct({ id: described(ProfileId, "the profile's id (a UUID)") })

/** The profile service's operations, declared once for every style (see OrgOperations). */
export class ProfileOperations extends RpcGroup.make(
  Rpc.make("CreateProfile", {
    payload: wireShape(Profile),
    success: Profile,
    error: Schema.Union(InvalidArgument, AlreadyExists, Unavailable)
  }).annotate(OperationDescription, "Creates a profile (a person in an org) under the caller's id; the same request again answers the same profile"),
  Rpc.make("GetProfile", {
    payload: wireShape(ProfileRef),
    success: Profile,
    error: Schema.Union(InvalidArgument, NotFound, Unavailable)
  }).annotate(OperationDescription, "Reads one profile by its id"),
  Rpc.make("ListProfiles", {
    payload: wireShape(ListProfilesRequest),
    success: ListProfilesResponse,
    error: Schema.Union(InvalidArgument, Unavailable)
  }).annotate(OperationDescription, "Lists profiles, newest first, a page at a time, optionally only those of one org")
) {}

/** What a style adapter needs in its context to run these operations. */
export type ProfileHandlers = OperationHandlers<RpcGroup.Rpcs<typeof ProfileOperations>>
