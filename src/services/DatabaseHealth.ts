import * as SqlClient from "@effect/sql/SqlClient"
import { Duration, Effect } from "effect"
import { withinBudget } from "./Transient.js"

/** Whether the database answers now; what readiness probes and gRPC health report. */
export class DatabaseHealth extends Effect.Service<DatabaseHealth>()("DatabaseHealth", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return {
      // Within a budget rather than Effect.timeout: a probe that gives up must not interrupt (and
      // so cancel by backend pid) a statement whose connection may serve someone else by then.
      isReady: withinBudget(sql`select 1`, Duration.seconds(2)).pipe(
        Effect.as(true),
        Effect.catchAllCause(() => Effect.succeed(false))
      )
    } as const
  })
}) {}
