import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import type { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import type * as Statement from "@effect/sql/Statement"
import { Context, Effect, type Fiber, FiberRef, Option } from "effect"
import { keepingUnit, keptConnection } from "../database/UnitConnection.js"

/** A statement whose text was written once: each call gives only its parameters ($1, $2, …). */
export type Prepared<A> = (params: ReadonlyArray<unknown>) => Effect.Effect<A, SqlError>

/** What a raw result says it wrote (pg's `Result.rowCount`; null for a statement that counts none). */
const rowCount = (result: unknown): number => {
  if (typeof result !== "object" || result === null || !("rowCount" in result)) return 0
  return typeof result.rowCount === "number" ? result.rowCount : 0
}

/**
 * Statements with their text fixed once, through @effect/sql's public API only. Untraced, and
 * unless the client transforms its rows (which only its statements apply), a statement runs as
 * it stands on a connection at hand, past the per-statement compilation, span and scope of
 * `sql.unsafe`, none of which differs from one call to the next: inside a transaction, on the
 * transaction's (the public `SqlClient.TransactionConnection`); in a unit of work outside one, on
 * the pool client the unit keeps (`sql.reserve`d, and kept from one unit to the next by the
 * process's gate: UnitConnection.ts, DatabaseGate.ts). Anywhere else it is `sql.unsafe`, whose
 * `sql.execute` span is what a traced statement shows.
 */
export const preparedStatements = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const transforms = Option.match(yield* Effect.serviceOption(PgClient.PgClient), {
    onNone: () => true,
    onSome: (pg) => pg.config.transformResultNames !== undefined
  })
  /** The connection to run a statement on as it stands, or undefined for `sql.unsafe`. */
  const at = (
    fiber: Fiber.RuntimeFiber<unknown, unknown>
  ): SqlConnection.Connection | Effect.Effect<SqlConnection.Connection, SqlError> | undefined => {
    if (transforms || fiber.getFiberRef(FiberRef.currentTracerEnabled)) return undefined
    const open = Context.getOption(fiber.currentContext, SqlClient.TransactionConnection)
    if (Option.isSome(open)) return open.value[0]
    const unit = keepingUnit(fiber)
    return unit === undefined ? undefined : keptConnection(sql, unit)
  }
  const on = <A>(
    fiber: Fiber.RuntimeFiber<unknown, unknown>,
    run: (connection: SqlConnection.Connection) => Effect.Effect<A, SqlError>,
    otherwise: () => Effect.Effect<A, SqlError>
  ): Effect.Effect<A, SqlError> => {
    const connection = at(fiber)
    // Made only when it runs, not for every statement a kept connection serves.
    if (connection === undefined) return otherwise()
    return Effect.isEffect(connection) ? Effect.flatMap(connection, run) : run(connection)
  }
  return {
    /** The rows it returns. */
    rows: (text: string): Prepared<ReadonlyArray<unknown>> => (params) =>
      // Written out rather than through `on`: a read's one statement, with no closure made for it.
      Effect.withFiberRuntime<ReadonlyArray<unknown>, SqlError>((fiber) => {
        const connection = at(fiber)
        if (connection === undefined) return sql.unsafe(text, params)
        return Effect.isEffect(connection)
          ? Effect.flatMap(connection, (reserved) => reserved.execute(text, params, undefined))
          : connection.execute(text, params, undefined)
      }),
    /**
     * The number of rows it wrote, where no row needs to be read back: an insert of a row whose
     * values the caller already holds learns all it needs from the count.
     */
    count: (text: string): Prepared<number> => (params) =>
      Effect.map(
        Effect.withFiberRuntime<unknown, SqlError>((fiber) =>
          on(fiber, (connection) => connection.executeRaw(text, params), () => sql.unsafe(text, params).raw)
        ),
        rowCount
      ),
    /**
     * The rows of a statement built for this call (a page of a list): on the same connection as
     * the others, so that a unit keeping one never takes a second from the pool.
     */
    statement: <A extends object>(statement: Statement.Statement<A>): Effect.Effect<ReadonlyArray<unknown>, SqlError> =>
      Effect.withFiberRuntime((fiber) =>
        on(fiber, (connection) => {
          const [text, params] = statement.compile()
          return connection.execute(text, params, undefined)
        }, () => statement)
      )
  } as const
})
