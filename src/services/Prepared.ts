import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import type { SqlError } from "@effect/sql/SqlError"
import { Context, Effect, type Fiber, FiberRef } from "effect"

/**
 * `DATABASE_STATEMENT_SHORTCUT`: on (the default), a fixed statement runs straight on its
 * connection as below; off, every statement goes through @effect/sql's public `sql.unsafe`. The
 * shortcut reads two private fields of @effect/sql's statement, so an upgrade that moves them is
 * one setting away from a working process while this module is mended.
 */
export class StatementShortcut extends Context.Reference<StatementShortcut>()("StatementShortcut", {
  defaultValue: () => true
}) {}

/** A statement whose text was written once: each call gives only its parameters ($1, $2, …). */
export type Prepared<A> = (params: ReadonlyArray<unknown>) => Effect.Effect<A, SqlError>

// What `sql.unsafe` keeps on the statement it builds: how it finds its connection, and the
// client's row transform (none in our layer, but kept so a configured one still applies).
interface StatementInternals {
  readonly acquirer: SqlConnection.Connection.Acquirer
  readonly transformRows: (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined
}

/**
 * Statements with their text fixed once. A tagged-template statement costs, per call, its
 * segments and their compilation, a span (a no-op one when untraced, still a context copy), a
 * scope and the connection lookup: an order of magnitude more work than running the text on its
 * connection, and none of it differs from one call to the next. Untraced, a prepared statement runs
 * on the connection @effect/sql would have picked: the open transaction's (so it composes with
 * `sql.withTransaction` as any statement does), or else the client's own. Traced, or with the
 * shortcut off, it is `sql.unsafe`, so its `sql.execute` span is what any statement shows.
 *
 * The client's own connection is taken once, here: @effect/sql-pg's, outside a transaction, is a
 * handle that borrows a pool client per statement and holds nothing in its scope. Interruption
 * behaves as in @effect/sql: the statement is cancelled on the server, the client released.
 */
const rowCount = (result: unknown): number => (result as { readonly rowCount: number | null }).rowCount ?? 0

export const preparedStatements = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  if (!(yield* StatementShortcut)) {
    return {
      rows: (text: string): Prepared<ReadonlyArray<unknown>> => (params) => sql.unsafe(text, params),
      count: (text: string): Prepared<number> => (params) => Effect.map(sql.unsafe(text, params).raw, rowCount)
    } as const
  }
  const { acquirer, transformRows } = sql.unsafe("") as unknown as StatementInternals
  // It cannot fail (no connection is made until a statement runs): a failure is a defect.
  const own = yield* Effect.orDie(Effect.scoped(acquirer))
  const connection = (fiber: Fiber.RuntimeFiber<unknown, unknown>) => {
    const transaction = Context.getOption(fiber.currentContext, SqlClient.TransactionConnection)
    return transaction._tag === "Some" ? transaction.value[0] : own
  }
  return {
    /** The rows it returns. */
    rows: (text: string): Prepared<ReadonlyArray<unknown>> => (params) =>
      Effect.withFiberRuntime<ReadonlyArray<unknown>, SqlError>((fiber) =>
        fiber.getFiberRef(FiberRef.currentTracerEnabled)
          ? sql.unsafe(text, params)
          : connection(fiber).execute(text, params, transformRows)
      ),
    /**
     * The number of rows it wrote, where no row needs to be read back: an insert of a row whose
     * values the caller already holds learns all it needs from the count.
     */
    count: (text: string): Prepared<number> => (params) =>
      Effect.map(
        Effect.withFiberRuntime<unknown, SqlError>((fiber) =>
          fiber.getFiberRef(FiberRef.currentTracerEnabled)
            ? sql.unsafe(text, params).raw
            : connection(fiber).executeRaw(text, params)
        ),
        rowCount
      )
  } as const
})
