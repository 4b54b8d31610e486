import * as Rpc from "@effect/rpc/Rpc"
import * as RpcGroup from "@effect/rpc/RpcGroup"
import { Effect, Schema } from "effect"
import { AlreadyExists, InvalidArgument, NotFound, Unavailable } from "../domain/Errors.js"
import { ProfileId } from "../domain/Ids.js"
import { ListProfilesRequest, ListProfilesResponse, Profile } from "../domain/Profile.js"
import { Profiles } from "../services/Profiles.js"
import { validated, wireShape } from "./Operation.js"

const ProfileRef = Schema.Struct({ id: ProfileId })

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
export type ProfileHandlers = Rpc.ToHandler<RpcGroup.Rpcs<typeof ProfileOperations>>

export const ProfileOperationsLive = ProfileOperations.toLayer(Effect.gen(function*() {
  const profiles = yield* Profiles
  return {
    CreateProfile: validated(Profile, profiles.create),
    GetProfile: validated(ProfileRef, ({ id }) => profiles.get(id)),
    ListProfiles: validated(ListProfilesRequest, (request) =>
      Effect.map(
        profiles.list(request.query),
        (page) => new ListProfilesResponse({ profiles: page.items, nextPageToken: page.nextPageToken })
      ))
  }
}))
