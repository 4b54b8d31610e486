import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { Unavailable } from "../../src/domain/Errors.js"
import { OrgId } from "../../src/domain/Ids.js"
import { OnboardingRequest } from "../../src/domain/Onboarding.js"
import { Org } from "../../src/domain/Org.js"
import { validate } from "../../src/domain/Validation.js"
import { Onboarding } from "../../src/services/Onboarding.js"
import { Orgs } from "../../src/services/Orgs.js"
import { OperationBudget } from "../../src/services/database/Transient.js"
import { serverUrl, TestDatabase } from "../support/TestDatabase.js"
import { uuid } from "../support/ids.js"

/**
 * `unavailable` alone means "not written"; a write that may still happen says so. Behind a table
 * lock held by another session, a create's budget runs out while its insert waits in the
 * database: the insert runs once the lock goes, so its caller is told the outcome is unknown and
 * how to learn it. A workflow's transaction rolls back when its budget runs out: plain
 * `unavailable`, and nothing of it is stored afterwards. PostgreSQL only: the embedded database has
 * one connection, so no other session can hold the lock.
 */

const services = Layer.mergeAll(Orgs.Default, Onboarding.Default).pipe(Layer.provideMerge(TestDatabase))
const shortBudget = Effect.provideService(OperationBudget, Duration.millis(300))

/** Another session of the pool, in a transaction holding `lock table orgs in share mode` until the scope ends. */
const orgsLocked = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const holder = yield* sql.reserve
  yield* holder.executeRaw("begin", [])
  yield* holder.executeRaw("lock table orgs in share mode", [])
  return { release: holder.executeRaw("commit", []) }
})

const orgNamed = (name: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ id: string }>`select id from orgs where name = ${name}`)

describe.skipIf(serverUrl === undefined)("a budget that runs out while a write waits in the database (PostgreSQL)", () => {
  layer(services, { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("a create is told its outcome is unknown, and the record is stored once the lock goes", () =>
      Effect.gen(function*() {
        const orgs = yield* Orgs
        const org = new Org({ id: OrgId.make(uuid()), name: "Stored After The Budget" })
        const { release } = yield* orgsLocked
        const refused = yield* orgs.create(org).pipe(shortBudget, Effect.flip)
        expect(refused).toBeInstanceOf(Unavailable)
        expect(refused.message).toBe(
          `the database did not answer within the operation's budget (DATABASE_OPERATION_TIMEOUT_MS), and org ${org.id} ` +
            `may still be stored: whether it was is unknown. Get org ${org.id}, or send the same request again: the same ` +
            "id answers with what was stored, and is never stored twice"
        )
        yield* release
        // The insert was queued, not cancelled: it runs once the lock goes (a condition, generous ceiling).
        let stored = (yield* orgNamed(org.name)).length
        for (let waited = 0; stored === 0 && waited < 60_000; waited += 50) {
          yield* Effect.sleep(50)
          stored = (yield* orgNamed(org.name)).length
        }
        expect(stored).toBe(1)
        // The same request again answers with what was stored.
        expect(yield* orgs.create(org)).toEqual(org)
      }).pipe(Effect.scoped))

    it.effect("a workflow's transaction rolls back: plain unavailable, and nothing of it stored", () =>
      Effect.gen(function*() {
        const onboarding = yield* Onboarding
        const name = `Rolled Back ${uuid()}`
        const request = yield* validate(OnboardingRequest)({
          license: { start: "2023-11-16T12:00:00Z", end: "2024-11-16T12:00:00Z" },
          org: { name },
          profile: { fullName: "Ada Lovelace" }
        })
        const { release } = yield* orgsLocked
        const refused = yield* onboarding.create(request).pipe(shortBudget, Effect.flip)
        expect(refused.message).toBe(
          "the database did not answer within the operation's budget (DATABASE_OPERATION_TIMEOUT_MS); try again later"
        )
        yield* release
        // Its statements ran once the lock went, then its ROLLBACK: a later statement on the same
        // table is queued behind them, so by its answer they are over.
        yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql`lock table orgs in exclusive mode`.pipe(sql.withTransaction))
        expect(yield* orgNamed(name)).toEqual([])
      }).pipe(Effect.scoped))
  })
})
