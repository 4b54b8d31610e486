import * as Reactivity from "@effect/experimental/Reactivity"
import { SqlClient, SqlError } from "@effect/sql"
import type { Connection } from "@effect/sql/SqlConnection"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, Layer } from "effect"

/** What a `countingSqlClient` has sent, and a switch that takes its database away. */
export interface DatabaseTap {
  /** Statements sent to the database through this client. */
  statements: number
  /** Their text and parameters, in the order sent. */
  readonly sent: Array<{ readonly sql: string; readonly params: ReadonlyArray<unknown> }>
  /** While true, every connection attempt fails, as with a database that is down. */
  down: boolean
  /** Connection attempts refused while down. */
  refused: number
}

export const databaseTap = (): DatabaseTap => ({ statements: 0, sent: [], down: false, refused: 0 })

const counted = (connection: Connection, tap: DatabaseTap): Connection => {
  const count = <A>(sql: string, params: ReadonlyArray<unknown>, sent: A): A => {
    tap.statements++
    tap.sent.push({ sql, params })
    return sent
  }
  return {
    execute: (sql, params, transformRows) => count(sql, params, connection.execute(sql, params, transformRows)),
    executeRaw: (sql, params) => count(sql, params, connection.executeRaw(sql, params)),
    executeStream: (sql, params, transformRows) => count(sql, params, connection.executeStream(sql, params, transformRows)),
    executeValues: (sql, params) => count(sql, params, connection.executeValues(sql, params)),
    executeUnprepared: (sql, params, transformRows) =>
      count(sql, params, connection.executeUnprepared(sql, params, transformRows))
  }
}

/**
 * A SqlClient over the test database's own, for the one service under test: it counts the
 * statements that service actually sends (not the ones it builds), and can be made to fail
 * every connection, as a database that stops.
 */
export const countingSqlClient = (tap: DatabaseTap) =>
  Layer.effect(
    SqlClient.SqlClient,
    Effect.gen(function*() {
      const database = yield* SqlClient.SqlClient
      return yield* SqlClient.make({
        acquirer: Effect.suspend(() =>
          tap.down
            ? Effect.fail(new SqlError.SqlError({ message: "connect ECONNREFUSED (the test took the database away)" })).pipe(
              Effect.ensuring(Effect.sync(() => tap.refused++))
            )
            // Uninterruptible: a reservation interrupted while it waits loses the connection
            // the pool hands it later (test/services/sql-reserve-upstream.test.ts), and a health
            // probe is interrupted by its budget; the embedded database has one connection.
            : Effect.map(Effect.uninterruptible(database.reserve), (connection) => counted(connection, tap))
        ),
        compiler: PgClient.makeCompiler(),
        spanAttributes: []
      })
    })
  ).pipe(Layer.provide(Reactivity.layer))
