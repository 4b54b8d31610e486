import type { DescService } from "@bufbuild/protobuf"
import { LicenseService } from "../../gen/license/v1beta1/license_pb.js"
import { OrgService } from "../../gen/org/v1beta1/org_pb.js"
import { ProfileService } from "../../gen/profile/v1beta1/profile_pb.js"
import { WorkflowService } from "../../gen/workflow/v1beta1/workflow_pb.js"

/** The services whose Connect and gRPC paths the HTTP edge (grpcMessageEncoding.ts) looks at. */
export const servedServices: ReadonlyArray<DescService> = [OrgService, ProfileService, LicenseService, WorkflowService]

/** `/package.Service/Method` */
export const methodPath = (service: DescService, method: { readonly name: string }) => `/${service.typeName}/${method.name}`
