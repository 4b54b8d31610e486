import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import type * as Rpc from "@effect/rpc/Rpc"
import * as RpcClient from "@effect/rpc/RpcClient"
import type * as RpcGroup from "@effect/rpc/RpcGroup"
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import { Effect, Layer, Predicate } from "effect"

type KeepsErrors = <E, R>(client: HttpClient.HttpClient.With<E, R>) => HttpClient.HttpClient.With<E, R>

/**
 * A refusal at the HTTP level (401 without the token, 413 over the body limit, 400 for a frame
 * the server cannot use) fails with its status and the message of its `{code, message}` body,
 * rather than as a body the RPC decoder cannot read.
 */
const refusalAsError = (response: HttpClientResponse.HttpClientResponse) =>
  response.status >= 200 && response.status < 300
    ? Effect.succeed(response)
    : Effect.flatMap(
      Effect.orElseSucceed(response.json, () => undefined),
      (body) => {
        const message = Predicate.hasProperty(body, "message") ? body.message : undefined
        return Effect.fail(
          new HttpClientError.ResponseError({
            request: response.request,
            response,
            reason: "StatusCode",
            description: typeof message === "string" ? message : "non 2xx status code"
          })
        )
      }
    )

/**
 * The protocol layer a typed client needs, for a service's `/rpc` URL:
 *
 *   const orgs = yield* RpcClient.make(OrgRpcs)
 *   const org = yield* orgs.GetOrg({ id })
 *
 * run with `Effect.scoped` and `Effect.provide(rpcProtocol("http://127.0.0.1:9090/rpc"))` (with
 * `{ token }` when the server has API_TOKEN set).
 * (The protocol maps any failure of its HTTP client to RpcClientError, ResponseError included.)
 */
export const rpcProtocol = (url: string, options: { readonly token?: string } = {}) =>
  RpcClient.layerProtocolHttp({
    url,
    transformClient: (<E, R>(client: HttpClient.HttpClient.With<E, R>) => {
      const refusing = HttpClient.transformResponse(client, Effect.flatMap(refusalAsError))
      const token = options.token
      return token === undefined ? refusing : HttpClient.mapRequest(refusing, HttpClientRequest.bearerToken(token))
    }) as KeepsErrors
  }).pipe(Layer.provide([FetchHttpClient.layer, RpcSerialization.layerJson]))

/**
 * A typed client of one operations table at a port's `/rpc` URL, without an import of @effect/rpc
 * (so that the package's Effect-line check runs before @effect/rpc loads):
 *
 *   const orgs = yield* rpcClient(OrgOperations, "http://127.0.0.1:9090/rpc")
 *   const org = yield* orgs.GetOrg({ id })
 *
 * in a scope (`Effect.scoped`), which closes the client.
 */
export const rpcClient = <Rpcs extends Rpc.Any>(
  group: RpcGroup.RpcGroup<Rpcs>,
  url: string,
  options: { readonly token?: string } = {}
) => RpcClient.make(group).pipe(Effect.provide(rpcProtocol(url, options)))
