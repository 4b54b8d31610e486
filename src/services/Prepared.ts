import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import type { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Context, Effect, type Fiber, FiberRef, Option } from "effect"

/** A statement whose text was written once: each call gives only its parameters ($1, $2, …). */
export type Prepared<A> = (params: ReadonlyArray<unknown>) => Effect.Effect<A, SqlError>

/** What a raw result says it wrote (pg's `Result.rowCount`; null for a statement that counts none). */
const rowCount = (result: unknown): number => {
  if (typeof result !== "object" || result === null || !("rowCount" in result)) return 0
  return typeof result.rowCount === "number" ? result.rowCount : 0
}

/**
 * Statements with their text fixed once, through @effect/sql's public API only. Inside a
 * transaction, untraced, a statement runs on the transaction's connection (the public
 * `SqlClient.TransactionConnection`), past the per-statement compilation, span and scope of
 * `sql.unsafe`, none of which differs from one call to the next. Anywhere else, traced, or when
 * the client transforms its rows (which only its statements apply), it is `sql.unsafe`: its
 * `sql.execute` span is what any statement shows.
 *
 * Outside a transaction no public path is cheaper and as safe: the client's own connection is
 * private to @effect/sql, and `sql.reserve` (a pool client held for a scope) loses its client when
 * interrupted while the pool is busy, unless its wait is made uninterruptible
 * (test/services/sql-reserve-upstream.test.ts).
 */
export const preparedStatements = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const transforms = Option.match(yield* Effect.serviceOption(PgClient.PgClient), {
    onNone: () => true,
    onSome: (pg) => pg.config.transformResultNames !== undefined
  })
  const transaction = (fiber: Fiber.RuntimeFiber<unknown, unknown>): SqlConnection.Connection | undefined => {
    if (transforms || fiber.getFiberRef(FiberRef.currentTracerEnabled)) return undefined
    const open = Context.getOption(fiber.currentContext, SqlClient.TransactionConnection)
    return Option.isSome(open) ? open.value[0] : undefined
  }
  return {
    /** The rows it returns. */
    rows: (text: string): Prepared<ReadonlyArray<unknown>> => (params) =>
      Effect.withFiberRuntime<ReadonlyArray<unknown>, SqlError>((fiber) =>
        transaction(fiber)?.execute(text, params, undefined) ?? sql.unsafe(text, params)
      ),
    /**
     * The number of rows it wrote, where no row needs to be read back: an insert of a row whose
     * values the caller already holds learns all it needs from the count.
     */
    count: (text: string): Prepared<number> => (params) =>
      Effect.map(
        Effect.withFiberRuntime<unknown, SqlError>((fiber) =>
          transaction(fiber)?.executeRaw(text, params) ?? sql.unsafe(text, params).raw
        ),
        rowCount
      )
  } as const
})
