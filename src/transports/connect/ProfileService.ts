import { create } from "@bufbuild/protobuf"
import type { ServiceImpl } from "@connectrpc/connect"
import { Effect } from "effect"
import {
  CreateProfileResponseSchema,
  GetProfileResponseSchema,
  ListProfilesResponseSchema,
  type ProfileService
} from "../../gen/profile/v1beta1/profile_pb.js"
import { operation } from "../../operations/Operation.js"
import { type ProfileHandlers, ProfileOperations } from "../../operations/ProfileOperations.js"
import type { EffectCall } from "./EffectCall.js"
import { profileFields } from "./ProtoCodec.js"

const createProfile = operation(ProfileOperations, "CreateProfile")
const getProfile = operation(ProfileOperations, "GetProfile")
const listProfiles = operation(ProfileOperations, "ListProfiles")

export const profileService = (call: EffectCall<ProfileHandlers>): ServiceImpl<typeof ProfileService> => ({
  createProfile: (req, ctx) =>
    call(
      ctx,
      Effect.map(
        createProfile({ id: req.id, fullName: req.fullName, orgId: req.orgId }),
        (profile) => create(CreateProfileResponseSchema, { profile: profileFields(profile) })
      )
    ),
  getProfile: (req, ctx) =>
    call(
      ctx,
      Effect.map(getProfile({ id: req.id }), (profile) => create(GetProfileResponseSchema, { profile: profileFields(profile) }))
    ),
  listProfiles: (req, ctx) =>
    call(
      ctx,
      Effect.map(listProfiles({ pageSize: req.pageSize, pageToken: req.pageToken, orgId: req.orgId }), (page) =>
        create(ListProfilesResponseSchema, {
          profiles: page.profiles.map(profileFields),
          nextPageToken: page.nextPageToken
        }))
    )
})
