import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as RpcClient from "@effect/rpc/RpcClient"
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import { Layer } from "effect"

type KeepsErrors = <E, R>(client: HttpClient.HttpClient.With<E, R>) => HttpClient.HttpClient.With<E, R>

/**
 * The protocol layer a typed client needs, for a service's `/rpc` URL:
 *
 *   const orgs = yield* RpcClient.make(OrgRpcs)
 *   const org = yield* orgs.GetOrg({ id })
 *
 * run with `Effect.scoped` and `Effect.provide(rpcProtocol("http://127.0.0.1:9090/rpc"))`.
 */
export const rpcProtocol = (url: string) =>
  // A refusal at the HTTP level (401 without the token, 413 over the body limit) is a client
  // error with its status, rather than a body the RPC decoder cannot read.
  // (The protocol maps any failure of its HTTP client to RpcClientError, ResponseError included.)
  RpcClient.layerProtocolHttp({ url, transformClient: HttpClient.filterStatusOk as KeepsErrors }).pipe(
    Layer.provide([FetchHttpClient.layer, RpcSerialization.layerJson])
  )
