import type { ServiceImpl } from "@connectrpc/connect"
import { ProfileService } from "../../gen/profile/v1beta1/profile_pb.js"
import { operation } from "../../operations/Operation.js"
import { type ProfileHandlers, ProfileOperations } from "../../contract/ProfileOperations.js"
import type { EffectCall } from "./EffectCall.js"
import { unary } from "./ProtoCodec.js"

export const profileService = (call: EffectCall<ProfileHandlers>): ServiceImpl<typeof ProfileService> => {
  const method = unary(call)
  return {
    createProfile: method(ProfileService.method.createProfile, operation(ProfileOperations, "CreateProfile"), "profile"),
    getProfile: method(ProfileService.method.getProfile, operation(ProfileOperations, "GetProfile"), "profile"),
    listProfiles: method(ProfileService.method.listProfiles, operation(ProfileOperations, "ListProfiles"))
  }
}
