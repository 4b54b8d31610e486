import { FetchHttpClient } from "@effect/platform"
import { RpcClient, RpcSerialization } from "@effect/rpc"
import { Layer } from "effect"

/**
 * The protocol layer a typed client needs, for a service's `/rpc` URL:
 *
 *   const orgs = yield* RpcClient.make(OrgRpcs)
 *   const org = yield* orgs.GetOrg({ id })
 *
 * run with `Effect.scoped` and `Effect.provide(rpcProtocol("http://127.0.0.1:9090/rpc"))`.
 */
export const rpcProtocol = (url: string) =>
  RpcClient.layerProtocolHttp({ url }).pipe(Layer.provide([FetchHttpClient.layer, RpcSerialization.layerJson]))
