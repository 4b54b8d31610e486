import { create } from "@bufbuild/protobuf"
import type { ServiceImpl } from "@connectrpc/connect"
import { Effect, Schema } from "effect"
import { ProfileId } from "../../domain/Ids.js"
import { Profile } from "../../domain/Profile.js"
import { validate } from "../../domain/Validation.js"
import {
  CreateProfileResponseSchema,
  GetProfileResponseSchema,
  type ProfileService
} from "../../gen/profile/v1beta1/profile_pb.js"
import { Profiles } from "../../services/Profiles.js"
import type { EffectCall } from "./EffectCall.js"
import { profileFields } from "./ProtoCodec.js"

const GetProfile = Schema.Struct({ id: ProfileId })

export const profileService = (call: EffectCall<Profiles>): ServiceImpl<typeof ProfileService> => ({
  createProfile: (req, ctx) =>
    call(ctx, Effect.gen(function*() {
      const profile = yield* validate(Profile)({ id: req.id, fullName: req.fullName, orgId: req.orgId })
      return create(CreateProfileResponseSchema, { profile: profileFields(yield* (yield* Profiles).create(profile)) })
    })),

  getProfile: (req, ctx) =>
    call(ctx, Effect.gen(function*() {
      const { id } = yield* validate(GetProfile)({ id: req.id })
      return create(GetProfileResponseSchema, { profile: profileFields(yield* (yield* Profiles).get(id)) })
    }))
})
