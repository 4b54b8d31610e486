import { create } from "@bufbuild/protobuf"
import type { ServiceImpl } from "@connectrpc/connect"
import { Effect } from "effect"
import {
  CreateLicenseResponseSchema,
  GetLicenseResponseSchema,
  ListLicensesResponseSchema,
  type LicenseService
} from "../../gen/license/v1beta1/license_pb.js"
import { type LicenseHandlers, LicenseOperations } from "../../operations/LicenseOperations.js"
import { operation } from "../../operations/Operation.js"
import type { EffectCall } from "./EffectCall.js"
import { licenseFields, present, timestampText } from "./ProtoCodec.js"

const createLicense = operation(LicenseOperations, "CreateLicense")
const getLicense = operation(LicenseOperations, "GetLicense")
const listLicenses = operation(LicenseOperations, "ListLicenses")

export const licenseService = (call: EffectCall<LicenseHandlers>): ServiceImpl<typeof LicenseService> => ({
  createLicense: (req, ctx) =>
    call(
      ctx,
      Effect.map(
        createLicense(present({ id: req.id, userId: req.userId, start: timestampText(req.start), end: timestampText(req.end) })),
        (license) => create(CreateLicenseResponseSchema, { license: licenseFields(license) })
      )
    ),
  getLicense: (req, ctx) =>
    call(
      ctx,
      Effect.map(getLicense({ id: req.id }), (license) => create(GetLicenseResponseSchema, { license: licenseFields(license) }))
    ),
  listLicenses: (req, ctx) =>
    call(
      ctx,
      Effect.map(listLicenses({ pageSize: req.pageSize, pageToken: req.pageToken, userId: req.userId }), (page) =>
        create(ListLicensesResponseSchema, {
          licenses: page.licenses.map(licenseFields),
          nextPageToken: page.nextPageToken
        }))
    )
})
