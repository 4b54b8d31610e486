import type { DescService } from "@bufbuild/protobuf"
import type { ConnectRouter, ServiceImpl } from "@connectrpc/connect"
import type { HttpApi } from "@effect/platform"
import type { Layer } from "effect"
import type { Rpc, RpcGroup } from "@effect/rpc"
import { LicenseService } from "../gen/license/v1beta1/license_pb.js"
import { OrgService } from "../gen/org/v1beta1/org_pb.js"
import { ProfileService } from "../gen/profile/v1beta1/profile_pb.js"
import { WorkflowService } from "../gen/workflow/v1beta1/workflow_pb.js"
import { LicenseOperations } from "../contract/LicenseOperations.js"
import { OrgOperations } from "../contract/OrgOperations.js"
import { ProfileOperations } from "../contract/ProfileOperations.js"
import { WorkflowOperations } from "../contract/WorkflowOperations.js"
import type { EffectCall } from "./connect/EffectCall.js"
import { licenseService } from "./connect/LicenseService.js"
import { orgService } from "./connect/OrgService.js"
import { profileService } from "./connect/ProfileService.js"
import { workflowService } from "./connect/WorkflowService.js"
import type { GraphqlApi } from "./graphql/GraphqlApi.js"
import { licenseGraphql, orgGraphql, profileGraphql, workflowGraphql } from "./graphql/PortSchemas.js"
import { LicenseHttpApi, OrgHttpApi, ProfileHttpApi, WorkflowHttpApi } from "../contract/HttpApis.js"
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

/** A service's descriptor and its connect-node implementation, built over the call runner. */
const connectApi = <S extends DescService, R>(
  service: S,
  implementation: (call: EffectCall<R>) => Partial<ServiceImpl<S>>
): ConnectApi<R> => ({ service, register: (router, call) => router.service(service, implementation(call)) })

export const orgApi = { connect: connectApi(OrgService, orgService), graphql: orgGraphql, rest: { api: OrgHttpApi, handlers: OrgRestLive }, rpcs: OrgOperations }
export const profileApi = { connect: connectApi(ProfileService, profileService), graphql: profileGraphql, rest: { api: ProfileHttpApi, handlers: ProfileRestLive }, rpcs: ProfileOperations }
export const licenseApi = { connect: connectApi(LicenseService, licenseService), graphql: licenseGraphql, rest: { api: LicenseHttpApi, handlers: LicenseRestLive }, rpcs: LicenseOperations }
export const workflowApi = {
  connect: connectApi(WorkflowService, workflowService),
  graphql: workflowGraphql,
  rest: { api: WorkflowHttpApi, handlers: WorkflowRestLive },
  rpcs: WorkflowOperations
}
