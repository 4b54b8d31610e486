import type { DescService } from "@bufbuild/protobuf"
import type * as HttpApi from "@effect/platform/HttpApi"
import * as ServiceApis from "../../../../src/transports/ServiceApis.js"
import type { ServiceUrls } from "../StyleClient.js"

/** What a client reads of a service's API (ServiceApis.ts): its descriptor, its REST routes, its operations table. */
export interface CatalogApi {
  readonly connect: { readonly service: DescService }
  readonly rest: { readonly api: HttpApi.HttpApi.Any }
  readonly rpcs: { readonly requests: ReadonlyMap<string, unknown> }
}

/** One operation of one service's table. */
export interface CatalogOperation {
  readonly service: keyof ServiceUrls
  readonly tag: string
  readonly api: CatalogApi
}

const isServiceApi = (value: unknown): value is CatalogApi =>
  typeof value === "object" && value !== null && "rpcs" in value && "connect" in value && "rest" in value && "graphql" in value

/**
 * Every operation of every service, read from the operations tables through ServiceApis.ts
 * (`orgApi` serves the `org` port): a table's new entry, or a new service, is here without an edit.
 */
export const catalog: ReadonlyArray<CatalogOperation> = Object.entries(ServiceApis as Record<string, unknown>).flatMap(([name, api]) =>
  isServiceApi(api)
    ? [...api.rpcs.requests.keys()].map((tag) => ({ service: name.replace(/Api$/, "") as keyof ServiceUrls, tag, api }))
    : []
)

/** The first letter lowered: an operation's REST endpoint and GraphQL mutation are named so (`CreateOrg` -> `createOrg`). */
export const lowerFirst = (name: string) => `${name[0]!.toLowerCase()}${name.slice(1)}`
