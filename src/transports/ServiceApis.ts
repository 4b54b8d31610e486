import type { DescService } from "@bufbuild/protobuf"
import type { ConnectRouter } from "@connectrpc/connect"
import { LicenseService } from "../../gen/license/v1beta1/license_pb.js"
import { OrgService } from "../../gen/org/v1beta1/org_pb.js"
import { ProfileService } from "../../gen/profile/v1beta1/profile_pb.js"
import { WorkflowService } from "../../gen/workflow/v1beta1/workflow_pb.js"
import type { Licenses } from "../../services/Licenses.js"
import type { Onboarding } from "../../services/Onboarding.js"
import type { Orgs } from "../../services/Orgs.js"
import type { Profiles } from "../../services/Profiles.js"
import type { EffectCall } from "./EffectCall.js"
import { licenseService } from "./licenseService.js"
import { orgService } from "./orgService.js"
import { profileService } from "./profileService.js"
import { workflowService } from "./workflowService.js"

/** One service's Connect/gRPC surface: its descriptor and how to register its handlers. */
export interface ConnectApi<R> {
  readonly service: DescService
  readonly register: (router: ConnectRouter, call: EffectCall<R>) => void
}

export const orgApi: ConnectApi<Orgs> = {
  service: OrgService,
  register: (router, call) => router.service(OrgService, orgService(call))
}

export const profileApi: ConnectApi<Profiles> = {
  service: ProfileService,
  register: (router, call) => router.service(ProfileService, profileService(call))
}

export const licenseApi: ConnectApi<Licenses> = {
  service: LicenseService,
  register: (router, call) => router.service(LicenseService, licenseService(call))
}

export const workflowApi: ConnectApi<Onboarding> = {
  service: WorkflowService,
  register: (router, call) => router.service(WorkflowService, workflowService(call))
}
