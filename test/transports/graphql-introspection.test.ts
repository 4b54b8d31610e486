import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { buildClientSchema, type IntrospectionQuery, printSchema } from "graphql/index.js"
import { aliasedIntrospection, standardIntrospection } from "../support/introspection.js"
import { licenseGraphql, orgGraphql, profileGraphql, workflowGraphql } from "../../src/transports/graphql/PortSchemas.js"
import { Services } from "../support/Services.js"
import { inProcessServers } from "../support/InProcessServers.js"

/**
 * The standard introspection query, as GraphiQL, Apollo Sandbox and code generators send it
 * (graphql-js's getIntrospectionQuery, every option on), answered on every port under the
 * default query limits, while the recursion it could be abused for stays refused.
 */


const graphql = (url: string, query: string) =>
  Effect.promise(async () => {
    const response = await fetch(`${url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ query })
    })
    return { status: response.status, body: await response.json() as { data?: unknown; errors?: Array<{ message: string; extensions?: { code?: string } }> } }
  })

describe("GraphQL introspection under the default limits", () => {
  layer(inProcessServers(), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("every port answers the standard introspection query with its own schema, whole", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const ports = [[urls.org, orgGraphql], [urls.profile, profileGraphql], [urls.license, licenseGraphql], [urls.workflow, workflowGraphql]] as const
        for (const [url, api] of ports) {
          const { body, status } = yield* graphql(url, standardIntrospection)
          expect(body.errors, url).toBeUndefined()
          expect(status).toBe(200)
          // What a tool rebuilds from the answer is the schema the port serves.
          expect(printSchema(buildClientSchema(body.data as IntrospectionQuery))).toBe(printSchema(api.schema))
        }
      }))

    it.effect("introspection's recursive lists stay refused, and two copies of the query in one operation are too many, or one and a __type of it all", () =>
      Effect.gen(function*() {
        const { org } = yield* Services
        const recursive = yield* graphql(org, "{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }")
        expect(recursive.body.data).toBeUndefined()
        expect(recursive.body.errors?.[0]?.message).toBe("Maximum introspection depth exceeded")

        const twice = yield* graphql(org, aliasedIntrospection(2))
        expect(twice.body.errors?.[0]).toMatchObject({
          message: "the operation selects __schema 2 times at its root (aliases and fragments included); at most 1 is allowed",
          extensions: { code: "INVALID_ARGUMENT" }
        })
        // One __schema and one __type of the whole query's fragments: past introspection's fields.
        const wide = yield* graphql(org, aliasedIntrospection(1).replace("query {", `query { t: __type(name: "Org") { ...FullType }`))
        expect(wide.body.errors?.[0]).toMatchObject({
          message: "the operation's introspection selects 408 fields; at most 300 are allowed",
          extensions: { code: "RESOURCE_EXHAUSTED" }
        })
      }))
  })
})
