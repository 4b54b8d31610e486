import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as HttpApi from "@effect/platform/HttpApi"
import type * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Effect } from "effect"

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
