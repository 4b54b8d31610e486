import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { parse, validate } from "../../src/transports/graphql/GraphqlJs.js"
import { exampleQueries, exampleQueryOf } from "../../src/transports/graphql/ExampleQueries.js"
import { licenseGraphql, orgGraphql, profileGraphql, workflowGraphql } from "../../src/transports/graphql/PortSchemas.js"
import { Services } from "../support/Services.js"
import { inProcessServers } from "../support/InProcessServers.js"

/**
 * The query GraphiQL opens with on each port (graphql/ExampleQueries.ts) is valid against the
 * port's schema and answers data there: a renamed field or argument fails here, not in front of
 * a person.
 */

const ports = { org: orgGraphql, profile: profileGraphql, license: licenseGraphql, workflow: workflowGraphql } as const

describe("GraphiQL's example query of each port", () => {
  it("every port has its own, valid against its schema", () => {
    expect(exampleQueries.size).toBe(Object.keys(ports).length)
    for (const [port, api] of Object.entries(ports)) {
      const query = exampleQueries.get(api)
      expect({ port, query: typeof query }).toEqual({ port, query: "string" })
      expect({ port, errors: validate(api.schema, parse(query!)).map((error) => error.message) }).toEqual({ port, errors: [] })
    }
  })

  layer(inProcessServers(), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("runs on its port as it stands and answers data", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        for (const [port, api] of Object.entries(ports)) {
          const reply = yield* Effect.promise(() =>
            fetch(`${urls[port as keyof typeof ports]}/graphql`, {
              method: "POST",
              headers: { "content-type": "application/json", accept: "application/graphql-response+json" },
              body: JSON.stringify({ query: exampleQueryOf(api) })
            }).then(async (response) => ({ status: response.status, body: await response.json() as { data?: unknown; errors?: unknown } }))
          )
          expect({ port, status: reply.status, errors: reply.body.errors }).toEqual({ port, status: 200, errors: undefined })
          expect(reply.body.data).toEqual(expect.any(Object))
        }
      }))
  })
})
