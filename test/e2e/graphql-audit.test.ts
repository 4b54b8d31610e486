import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { auditServer } from "graphql-http"
import { readFileSync } from "node:fs"
import { Services } from "../support/Services.js"
import { deployment, ServicesLive } from "./support/Servers.js"

/** Where the GraphQL examples explain the conformance: docs/examples.md, "GraphQL (curl)". */
const readme = readFileSync(new URL("../../docs/examples.md", import.meta.url), "utf8")

/**
 * The GraphQL-over-HTTP conformance audit shipped with graphql-http, against every port: every
 * MUST passes; a SHOULD or MAY that is not met must be explained in docs/examples.md, by its audit id.
 */
describe(`GraphQL over HTTP audit (${deployment})`, () => {
  layer(ServicesLive, { timeout: 180_000, excludeTestServices: true })((it) => {
    for (const port of ["org", "profile", "license", "workflow"] as const) {
      it.effect(`the ${port} port passes every MUST of the graphql-http server audit`, () =>
        Effect.gen(function*() {
          const urls = yield* Services
          const results = yield* Effect.promise(() => auditServer({ url: `${urls[port]}/graphql` }))
          expect(results.length).toBeGreaterThan(50)
          const failedMusts = results.filter((r) => r.status === "error").map((r) => `${r.id} ${r.name}: ${"reason" in r ? r.reason : ""}`)
          expect(failedMusts).toEqual([])
          const unexplained = results.filter((r) => r.status !== "ok" && !readme.includes(r.id))
          expect(unexplained.map((r) => `${r.id} ${r.name}`)).toEqual([])
        }))
    }
  })
})
