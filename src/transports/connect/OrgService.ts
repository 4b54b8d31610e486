import type { ServiceImpl } from "@connectrpc/connect"
import { OrgService } from "../../gen/org/v1beta1/org_pb.js"
import { operation } from "../../operations/Operation.js"
import { type OrgHandlers, OrgOperations } from "../../contract/OrgOperations.js"
import type { EffectCall } from "./EffectCall.js"
import { unary } from "./ProtoCodec.js"

export const orgService = (call: EffectCall<OrgHandlers>): ServiceImpl<typeof OrgService> => {
  const method = unary(call)
  return {
    createOrg: method(OrgService.method.createOrg, operation(OrgOperations, "CreateOrg"), "org"),
    getOrg: method(OrgService.method.getOrg, operation(OrgOperations, "GetOrg"), "org"),
    listOrgs: method(OrgService.method.listOrgs, operation(OrgOperations, "ListOrgs"))
  }
}
