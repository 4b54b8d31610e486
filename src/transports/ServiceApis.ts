import type { DescService } from "@bufbuild/protobuf"
import type { ConnectRouter } from "@connectrpc/connect"
import type { HttpApi } from "@effect/platform"
import type { Layer } from "effect"
import type { Rpc, RpcGroup } from "@effect/rpc"
import { LicenseService } from "../gen/license/v1beta1/license_pb.js"
import { OrgService } from "../gen/org/v1beta1/org_pb.js"
import { ProfileService } from "../gen/profile/v1beta1/profile_pb.js"
import { WorkflowService } from "../gen/workflow/v1beta1/workflow_pb.js"
import { type LicenseHandlers, LicenseOperations } from "../operations/LicenseOperations.js"
import { type OrgHandlers, OrgOperations } from "../operations/OrgOperations.js"
import { type ProfileHandlers, ProfileOperations } from "../operations/ProfileOperations.js"
import { type WorkflowHandlers, WorkflowOperations } from "../operations/WorkflowOperations.js"
import type { EffectCall } from "./connect/EffectCall.js"
import { licenseService } from "./connect/LicenseService.js"
import { orgService } from "./connect/OrgService.js"
import { profileService } from "./connect/ProfileService.js"
import { workflowService } from "./connect/WorkflowService.js"
import {
  type GraphqlApi,
  licenseGraphql,
  orgGraphql,
  profileGraphql,
  workflowGraphql
} from "./graphql/GraphqlApis.js"
import { LicenseHttpApi, OrgHttpApi, ProfileHttpApi, WorkflowHttpApi } from "./rest/HttpApis.js"
import { LicenseRestLive, OrgRestLive, ProfileRestLive, WorkflowRestLive } from "./rest/RestHandlers.js"

/** One service's Connect/gRPC surface: its descriptor and how to register its handlers. */
export interface ConnectApi<R> {
  readonly service: DescService
  readonly register: (router: ConnectRouter, call: EffectCall<R>) => void
}

/** Everything one service offers on its port, in every style, over the services in `R`. */
export interface ServiceApi<R, Rpcs extends Rpc.Any> {
  readonly connect: ConnectApi<R>
  readonly graphql: GraphqlApi<R>
  /** The REST API (paths, bodies, statuses; also the OpenAPI document) and its handlers. */
  readonly rest: { readonly api: HttpApi.HttpApi.Any; readonly handlers: Layer.Layer<HttpApi.Api, never, R> }
  readonly rpcs: RpcGroup.RpcGroup<Rpcs>
}

const orgConnect: ConnectApi<OrgHandlers> = {
  service: OrgService,
  register: (router, call) => router.service(OrgService, orgService(call))
}

const profileConnect: ConnectApi<ProfileHandlers> = {
  service: ProfileService,
  register: (router, call) => router.service(ProfileService, profileService(call))
}

const licenseConnect: ConnectApi<LicenseHandlers> = {
  service: LicenseService,
  register: (router, call) => router.service(LicenseService, licenseService(call))
}

const workflowConnect: ConnectApi<WorkflowHandlers> = {
  service: WorkflowService,
  register: (router, call) => router.service(WorkflowService, workflowService(call))
}

export const orgApi = { connect: orgConnect, graphql: orgGraphql, rest: { api: OrgHttpApi, handlers: OrgRestLive }, rpcs: OrgOperations }
export const profileApi = { connect: profileConnect, graphql: profileGraphql, rest: { api: ProfileHttpApi, handlers: ProfileRestLive }, rpcs: ProfileOperations }
export const licenseApi = { connect: licenseConnect, graphql: licenseGraphql, rest: { api: LicenseHttpApi, handlers: LicenseRestLive }, rpcs: LicenseOperations }
export const workflowApi = {
  connect: workflowConnect,
  graphql: workflowGraphql,
  rest: { api: WorkflowHttpApi, handlers: WorkflowRestLive },
  rpcs: WorkflowOperations
}
