import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Services } from "../support/Services.js"
import { inProcessServers } from "../support/InProcessServers.js"
import { httpCall } from "./support/wire.js"

/**
 * A call's style and route come from its path; the query string is the caller's data. A query
 * holding `a.b/c` used to make any path read as a Connect procedure (`/<package>.<Service>/…`).
 */

const dottedQuery = "x=a.b/c&y=1.5/2"

describe("a query string never changes the route", () => {
  layer(inProcessServers(), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("REST, GraphQL, the OpenAPI document and the probes answer as without the query", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const list = yield* Effect.promise(() => httpCall(`${urls.org}/orgs?pageSize=1&${dottedQuery}`))
        expect({ status: list.status, body: list.json }).toEqual({ status: 200, body: { orgs: [], nextPageToken: "" } })

        const graphql = yield* Effect.promise(() =>
          httpCall(`${urls.org}/graphql?query=${encodeURIComponent("{__typename}")}&${dottedQuery}`, {
            headers: { accept: "application/graphql-response+json" }
          })
        )
        expect({ status: graphql.status, body: graphql.json }).toEqual({ status: 200, body: { data: { __typename: "Query" } } })

        const document = yield* Effect.promise(() => httpCall(`${urls.profile}/openapi.json?v=1.0/x`))
        expect({ status: document.status, openapi: (document.json as { openapi?: string } | undefined)?.openapi }).toEqual({
          status: 200,
          openapi: expect.stringMatching(/^3\./)
        })

        const healthz = yield* Effect.promise(() => httpCall(`${urls.license}/healthz?${dottedQuery}`))
        expect(healthz.status).toBe(200)
      }))

    it.effect("a procedure path is still a procedure with a query after it", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const reply = yield* Effect.promise(() =>
          httpCall(`${urls.org}/org.v1beta1.OrgService/GetOrg?${dottedQuery}`, {
            headers: { "content-type": "application/json" },
            body: `{"id":"00000000-0000-4000-8000-000000000000"}`
          })
        )
        expect({ status: reply.status, code: (reply.json as { code?: string } | undefined)?.code }).toEqual({ status: 404, code: "not_found" })
      }))
  })
})
