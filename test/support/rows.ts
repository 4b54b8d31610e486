import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** How many rows each table holds: what a test asserts on after a failure to prove nothing was written. */
export const rowCounts = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ orgs: number; profiles: number; licenses: number; runs: number }>`
    select (select count(*) from orgs)::int as orgs,
           (select count(*) from profiles)::int as profiles,
           (select count(*) from licenses)::int as licenses,
           (select count(*) from onboarding_runs)::int as runs`.pipe(Effect.map((rows) => rows[0]!)))
