import type * as HttpApi from "@effect/platform/HttpApi"
import type * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"

/** An endpoint of a port's API, by its group's and its own name, as HttpApis.ts declares them. */
export const endpointOf = (api: HttpApi.HttpApi.Any, group: string, name: string): HttpApiEndpoint.HttpApiEndpoint.AnyWithProps => {
  const endpoint = (api as HttpApi.HttpApi.AnyWithProps).groups[group]?.endpoints[name]
  if (endpoint === undefined) throw new Error(`no endpoint ${group}.${name} in this API`)
  return endpoint
}

/**
 * Writes a reply as the JSON of the value itself, at its endpoint's success status, where the
 * platform would encode the value with the endpoint's success schema: that encode checks every
 * field again, each step an Effect, on a value whose fields passed those checks when it was made
 * and are already their own encoded form (up to a tenth of a REST read's CPU: docs/benchmarks.md
 * §5). Used for the replies that hold a domain record under its key (`{"org": …}`), whose fields
 * are ids, names and canonical timestamps. test/transports/rest-reply.test.ts encodes each such endpoint's
 * replies with its success schema too, and fails when the two differ.
 */
export const jsonReply = (endpoint: HttpApiEndpoint.HttpApiEndpoint.AnyWithProps) => {
  const status = HttpApiSchema.getStatusSuccess(endpoint.successSchema)
  return (body: unknown): HttpServerResponse.HttpServerResponse => HttpServerResponse.unsafeJson(body, { status })
}
