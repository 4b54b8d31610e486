import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as HttpApi from "@effect/platform/HttpApi"
import type * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Effect } from "effect"

/**
 * What `onboarding-services-client` offers (its declarations; `index.ts` is the entry that loads
 * it): typed clients of the four services, from the same declarations the servers are built from.
 * Only contracts and client code: no server internals, no Node built-in.
 */

// @effect/rpc at /rpc: the operations tables, a typed client of one, and the protocol layer for a
// port's URL (for `RpcClient.make` of @effect/rpc's own).
export { LicenseOperations } from "../contract/LicenseOperations.js"
export { OrgOperations } from "../contract/OrgOperations.js"
export { ProfileOperations } from "../contract/ProfileOperations.js"
export { WorkflowOperations } from "../contract/WorkflowOperations.js"
export { rpcClient, rpcProtocol } from "./RpcProtocol.js"

// REST: each port's HttpApi (also its OpenAPI document), and a typed client of it.
export { LicenseHttpApi, OrgHttpApi, ProfileHttpApi, WorkflowHttpApi } from "../contract/HttpApis.js"
// (restClient, below)

// Connect, gRPC and gRPC-Web: the generated service descriptors, and a client of one over the
// caller's transport (`onboarding-services-client/node` has one for Node).
export { LicenseService } from "../gen/license/v1beta1/license_pb.js"
export { OrgService } from "../gen/org/v1beta1/org_pb.js"
export { ProfileService } from "../gen/profile/v1beta1/profile_pb.js"
export { WorkflowService } from "../gen/workflow/v1beta1/workflow_pb.js"
export { bearerToken, connectClient } from "./ConnectClient.js"

// The domain's values and errors that the clients answer with.
export { AlreadyExists, InvalidArgument, NotFound, Unavailable } from "../domain/Errors.js"
export { License, ListLicensesResponse } from "../domain/License.js"
export { ListOnboardingWorkflowsResponse, OnboardingResult, OnboardingRun } from "../domain/Onboarding.js"
export { ListOrgsResponse, Org } from "../domain/Org.js"
export { ListProfilesResponse, Profile } from "../domain/Profile.js"

/**
 * A typed REST client of one port, from the same HttpApi the server is built from:
 *
 *   const orgs = yield* restClient(OrgHttpApi, "http://127.0.0.1:9090")
 *   const { org } = yield* orgs.orgs.getOrg({ path: { id } })
 *
 * (with `{ token }` when the server has API_TOKEN set). It uses the platform's fetch client.
 */
export const restClient = <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R>(
  api: HttpApi.HttpApi<Id, Groups, E, R>,
  baseUrl: string,
  options: { readonly token?: string } = {}
) =>
  HttpApiClient.make(api, {
    baseUrl,
    transformClient: (client) => {
      const token = options.token
      return token === undefined ? client : HttpClient.mapRequest(client, HttpClientRequest.bearerToken(token))
    }
  }).pipe(Effect.provide(FetchHttpClient.layer))
