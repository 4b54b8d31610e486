import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Whether the database answers now; what readiness probes and gRPC health report. */
export class DatabaseHealth extends Effect.Service<DatabaseHealth>()("DatabaseHealth", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return {
      isReady: sql`select 1`.pipe(
        Effect.timeout("2 seconds"),
        Effect.as(true),
        Effect.catchAllCause(() => Effect.succeed(false))
      )
    } as const
  })
}) {}
