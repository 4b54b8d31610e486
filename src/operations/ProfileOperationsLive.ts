import { Effect } from "effect"
import { ListProfilesRequest, ListProfilesResponse, Profile } from "../domain/Profile.js"
import { Profiles } from "../services/Profiles.js"
import { operationsLayer, validated } from "./Operation.js"
import { ProfileOperations, ProfileRef } from "./ProfileOperations.js"

/** The handlers of ProfileOperations, over the Profiles service. */
export const ProfileOperationsLive = operationsLayer(ProfileOperations, Effect.gen(function*() {
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
