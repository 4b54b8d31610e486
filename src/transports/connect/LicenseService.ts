import type { ServiceImpl } from "@connectrpc/connect"
import { LicenseService } from "../../gen/license/v1beta1/license_pb.js"
import { operation } from "../../operations/Operation.js"
import { type LicenseHandlers, LicenseOperations } from "../../contract/LicenseOperations.js"
import type { EffectCall } from "./EffectCall.js"
import { unary } from "./ProtoCodec.js"

export const licenseService = (call: EffectCall<LicenseHandlers>): ServiceImpl<typeof LicenseService> => {
  const method = unary(call)
  return {
    createLicense: method(LicenseService.method.createLicense, operation(LicenseOperations, "CreateLicense"), "license"),
    getLicense: method(LicenseService.method.getLicense, operation(LicenseOperations, "GetLicense"), "license"),
    listLicenses: method(LicenseService.method.listLicenses, operation(LicenseOperations, "ListLicenses"))
  }
}
