import { create, toBinary } from "@bufbuild/protobuf"
import { describe, expect, layer } from "@effect/vitest"
import { Deferred, Duration, Effect, HashMap, Layer, Logger } from "effect"
import { randomUUID } from "node:crypto"
import { GetOrgRequestSchema } from "../../src/gen/org/v1beta1/org_pb.js"
import { makeDatabaseGate } from "../../src/services/database/DatabaseGate.js"
import { withinBudget } from "../../src/services/database/WithinBudget.js"
import { Orgs } from "../../src/services/Orgs.js"
import { envelope, grpcRaw, httpCall } from "../reliability/support/wire.js"
import { InMemoryServices, inProcessServers } from "../support/InProcessServers.js"
import { Services } from "../support/Services.js"

/*
 * A read past its budget, run in its call's fiber (Connect, gRPC, GraphQL: InCaller.ts), is answered
 * `unavailable` at once, and its access line says so, while its statement's cancellation (here held
 * until the test lets it go) still holds the unit's permit: the call's note is told as the caller
 * is answered, not when the fiber ends.
 */

const gate = makeDatabaseGate({ connections: 8, maxWaiting: 0 })
const cancelled = Deferred.unsafeMake<void>(undefined as never)
/** A statement that never answers; its cancellation ends when `cancelled` is done, as sql-pg's waits for pg_cancel_backend. */
const stuck = Effect.async<never>(() => Deferred.await(cancelled))
const stuckOrgs = Layer.merge(
  InMemoryServices,
  Layer.succeed(Orgs, Orgs.make({ create: () => Effect.die("not used"), list: () => Effect.die("not used"), get: () => withinBudget(stuck, Duration.millis(100), gate, true) }))
)

const lines: Array<Record<string, unknown>> = []
const capture = Logger.replace(
  Logger.defaultLogger,
  Logger.make(({ annotations }) => {
    lines.push(Object.fromEntries(HashMap.toEntries(annotations)))
  })
)
const accessLine = (requestId: string) => lines.find((line) => line["access"] === true && line["requestId"] === requestId)

describe("a read past its budget in its call's fiber", () => {
  layer(inProcessServers({ accessLog: true }, stuckOrgs).pipe(Layer.provide(capture)), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("is answered unavailable and logged so at once, its permit held until its cancellation ends", () =>
      Effect.gen(function*() {
        const { org } = yield* Services
        const id = randomUUID()
        const ids = { connect: `budget-${randomUUID()}`, grpc: `budget-${randomUUID()}`, graphql: `budget-${randomUUID()}` }
        const json = { "content-type": "application/json" }
        const [connect, , graphql] = yield* Effect.promise(() =>
          Promise.all([
            httpCall(`${org}/org.v1beta1.OrgService/GetOrg`, { headers: { ...json, "x-request-id": ids.connect }, body: JSON.stringify({ id }) }),
            grpcRaw(org, "org.v1beta1.OrgService/GetOrg", envelope(toBinary(GetOrgRequestSchema, create(GetOrgRequestSchema, { id }))), {
              "x-request-id": ids.grpc
            }),
            httpCall(`${org}/graphql`, {
              headers: { ...json, "x-request-id": ids.graphql },
              body: JSON.stringify({ query: `{ org(id: "${id}") { org { id } } }` })
            })
          ])
        )
        expect(connect.status).toBe(503)
        expect(graphql.text).toContain("UNAVAILABLE")
        // The access line follows the response's end (a condition, generous ceiling).
        for (let waited = 0; Object.values(ids).some((each) => accessLine(each) === undefined) && waited < 10_000; waited += 20) {
          yield* Effect.sleep("20 millis")
        }
        for (const [style, requestId] of Object.entries(ids)) {
          expect(accessLine(requestId), style).toMatchObject({ style, operation: "GetOrg", code: "unavailable" })
        }
        // The three cancellations still wait, each holding its unit's permit.
        expect(gate.held()).toBe(3)
        yield* Deferred.succeed(cancelled, undefined)
        for (let waited = 0; gate.held() > 0 && waited < 10_000; waited += 20) yield* Effect.sleep("20 millis")
        expect(gate.held()).toBe(0)
      }))
  })
})
