import * as Rpc from "@effect/rpc/Rpc"
import * as RpcGroup from "@effect/rpc/RpcGroup"
import { Effect, Schema } from "effect"
import { AlreadyExists, InvalidArgument, NotFound, Unavailable } from "../domain/Errors.js"
import { ProfileId } from "../domain/Ids.js"
import { Profile } from "../domain/Profile.js"
import { Profiles } from "../services/Profiles.js"

/** The profile service's operations, declared once for every style (see OrgOperations). */
export class ProfileOperations extends RpcGroup.make(
  Rpc.make("CreateProfile", {
    payload: Profile,
    success: Profile,
    error: Schema.Union(InvalidArgument, AlreadyExists, Unavailable)
  }),
  Rpc.make("GetProfile", {
    payload: { id: ProfileId },
    success: Profile,
    error: Schema.Union(InvalidArgument, NotFound, Unavailable)
  })
) {}

export const ProfileOperationsLive = ProfileOperations.toLayer(Effect.gen(function*() {
  const profiles = yield* Profiles
  return {
    CreateProfile: (profile) => profiles.create(profile),
    GetProfile: ({ id }) => profiles.get(id)
  }
}))
