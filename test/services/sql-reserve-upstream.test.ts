import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, Scope } from "effect"
import * as Pg from "pg"
import { freshServerDatabase, serverUrl } from "../support/TestDatabase.js"

/**
 * @effect/sql-pg's `sql.reserve` (also `transactionAcquirer`), shown on its own client over a `pg`
 * pool of one: a reservation interrupted while it waits for a connection keeps no way to give
 * one back. Its wait registers no canceller, so when the pool later hands it the connection, the
 * resumption is dropped and nothing ever releases the client: the pool is one connection short
 * for good. `sql.withTransaction` is safe (it waits uninterruptibly), and so is a reservation made
 * uninterruptible, which is how test/support/CountingSqlClient.ts reserves: its health probes are
 * interrupted by their budget, and one interrupted while waiting would take the embedded
 * database's only connection for good, every later probe then timing out (the likely cause of a
 * database-health test that once never saw a change within 15 s). If an upgrade fixes this,
 * the first expectation fails. Checked against @effect/sql-pg 0.53.0.
 */

const poolOfOne = (url: string) =>
  Effect.acquireRelease(
    Effect.sync(() => new Pg.Pool({ connectionString: url, max: 1 })),
    // A lost client is never given back, and `end` waits for it: the database's drop (`with
    // (force)`) ends its connection instead.
    (pool) => Effect.promise(() => pool.end()).pipe(Effect.interruptible, Effect.timeoutOption(1000))
  )

/** Waits (without a clock) until the pool has handed its connection on: nobody waits for it any more. */
const settled = (pool: Pg.Pool) =>
  Effect.gen(function*() {
    while (pool.waitingCount > 0) yield* Effect.yieldNow()
    yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
  })

/**
 * One reservation holds the pool's only connection; a second, made by `reserve`, waits for it and
 * is interrupted while waiting; then the first is released. The pool's idle connections then.
 */
const idleAfterAnInterruptedWait = (reserve: (sql: SqlClient.SqlClient) => SqlClient.SqlClient["reserve"]) =>
  Effect.gen(function*() {
    const database = yield* freshServerDatabase(serverUrl!)
    const pool = yield* poolOfOne(database.url)
    const context = yield* Layer.build(PgClient.layerFromPool({ acquire: Effect.succeed(pool) }))
    const sql = yield* Effect.provide(SqlClient.SqlClient, context)
    const holder = yield* Scope.make()
    yield* Scope.extend(sql.reserve, holder)
    const waiter = yield* Effect.fork(Effect.scoped(reserve(sql)))
    while (pool.waitingCount === 0) yield* Effect.yieldNow()
    yield* Fiber.interruptFork(waiter)
    yield* Scope.close(holder, Exit.void)
    yield* Fiber.await(waiter)
    yield* settled(pool)
    return { total: pool.totalCount, idle: pool.idleCount }
  }).pipe(Effect.scoped)

describe.skipIf(serverUrl === undefined)("@effect/sql-pg's reserve, interrupted while it waits for a connection (PostgreSQL)", () => {
  it.live("loses the connection it is handed afterwards: the pool of one has none idle and nobody holding it", () =>
    Effect.gen(function*() {
      expect(yield* idleAfterAnInterruptedWait((sql) => sql.reserve)).toEqual({ total: 1, idle: 0 })
    }), 30_000)

  it.live("made uninterruptible, gives the connection back", () =>
    Effect.gen(function*() {
      expect(yield* idleAfterAnInterruptedWait((sql) => Effect.uninterruptible(sql.reserve))).toEqual({ total: 1, idle: 1 })
    }), 30_000)
})
