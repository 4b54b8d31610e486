import { create } from "@bufbuild/protobuf"
import type { ServiceImpl } from "@connectrpc/connect"
import { Effect, Schema } from "effect"
import { LicenseId } from "../../domain/Ids.js"
import { License } from "../../domain/License.js"
import { validate } from "../../domain/Validation.js"
import {
  CreateLicenseResponseSchema,
  GetLicenseResponseSchema,
  type LicenseService
} from "../../gen/license/v1beta1/license_pb.js"
import { Licenses } from "../../services/Licenses.js"
import type { EffectCall } from "./EffectCall.js"
import { licenseFields, present, timestampText } from "./ProtoCodec.js"

const GetLicense = Schema.Struct({ id: LicenseId })

export const licenseService = (call: EffectCall<Licenses>): ServiceImpl<typeof LicenseService> => ({
  createLicense: (req, ctx) =>
    call(ctx, Effect.gen(function*() {
      const license = yield* validate(License)(present({
        id: req.id,
        userId: req.userId,
        start: timestampText(req.start),
        end: timestampText(req.end)
      }))
      return create(CreateLicenseResponseSchema, { license: licenseFields(yield* (yield* Licenses).create(license)) })
    })),

  getLicense: (req, ctx) =>
    call(ctx, Effect.gen(function*() {
      const { id } = yield* validate(GetLicense)({ id: req.id })
      return create(GetLicenseResponseSchema, { license: licenseFields(yield* (yield* Licenses).get(id)) })
    }))
})
