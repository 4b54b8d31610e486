import { Effect } from "effect"
import { ListProfilesResponse } from "../domain/Profile.js"
import { Profiles } from "../services/Profiles.js"
import { operationsLayer } from "./Operation.js"
import { ProfileOperations } from "../contract/ProfileOperations.js"

/** The handlers of ProfileOperations, over the Profiles service. */
export const ProfileOperationsLive = operationsLayer(ProfileOperations, Effect.gen(function*() {
  const profiles = yield* Profiles
  return {
    CreateProfile: profiles.create,
    GetProfile: ({ id }) => profiles.get(id),
    ListProfiles: (request) =>
      Effect.map(
        profiles.list(request.query),
        (page) => new ListProfilesResponse({ profiles: page.items, nextPageToken: page.nextPageToken })
      )
  }
}))
