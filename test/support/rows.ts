import { SqlClient } from "@effect/sql"
import { Effect, HashMap, Option, Ref } from "effect"
import { InMemoryStore } from "../../src/services/records/InMemoryStore.js"

const sqlCounts = (sql: SqlClient.SqlClient) =>
  sql<{ orgs: number; profiles: number; licenses: number; runs: number }>`
    select (select count(*) from orgs)::int as orgs,
           (select count(*) from profiles)::int as profiles,
           (select count(*) from licenses)::int as licenses,
           (select count(*) from onboarding_runs)::int as runs`.pipe(Effect.map((rows) => rows[0]!))

const storeCounts = (store: InMemoryStore["Type"]) =>
  Effect.map(Ref.get(store), (tables) => ({
    orgs: HashMap.size(tables.orgs),
    profiles: HashMap.size(tables.profiles),
    licenses: HashMap.size(tables.licenses),
    runs: HashMap.size(tables.runs)
  }))

/**
 * How many rows each table holds, in the in-memory store or the test database, whichever the
 * test's services use: what a test asserts on after a failure to prove nothing was written.
 */
export const rowCounts = Effect.gen(function*() {
  const store = yield* Effect.serviceOption(InMemoryStore)
  if (Option.isSome(store)) return yield* storeCounts(store.value)
  const sql = yield* Effect.serviceOption(SqlClient.SqlClient)
  if (Option.isSome(sql)) return yield* sqlCounts(sql.value)
  return yield* Effect.dieMessage("rowCounts: the test provides neither the in-memory store nor a database")
})
