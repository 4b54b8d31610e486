import { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Duration, Effect, Layer, Metric, Schedule } from "effect"
import * as Pg from "pg"
import { type DatabaseGate, DatabaseGateRef, makeDatabaseGate } from "./DatabaseGate.js"

/**
 * The pool's state, sampled every second: connections lent out, idle in the pool, and callers
 * waiting for one (a pool too small for its load, or a database that has stopped answering).
 */
export const poolConnections = Metric.gauge("onboarding_db_pool_connections", {
  description: "Database connections by state (in_use: lent to a unit of work; idle: open in the pool)"
})
export const poolWaiting = Metric.gauge("onboarding_db_pool_waiting", {
  description: "Units of work waiting for a database connection"
})
export const workHeld = Metric.gauge("onboarding_db_work_held", {
  description: "Units of work holding one of the pool's permits, those whose callers have gone included"
})

const inUse = Metric.tagged(poolConnections, "state", "in_use")
const idle = Metric.tagged(poolConnections, "state", "idle")

/**
 * One reading of the pool and the gate into their gauges, taken when it runs: the figures are read
 * inside `suspend`, so a repeated reading is a new one (built once, it would set the start-up
 * figures again every second).
 */
export const samplePool = (pool: Pick<Pg.Pool, "totalCount" | "idleCount" | "waitingCount">, gate: DatabaseGate) =>
  Effect.suspend(() =>
    Effect.all([
      // A kept connection no unit holds is lent by the pool but idle in the gate.
      Metric.set(inUse, pool.totalCount - pool.idleCount - gate.free()),
      Metric.set(idle, pool.idleCount + gate.free()),
      Metric.set(poolWaiting, gate.waiting() + pool.waitingCount),
      Metric.set(workHeld, gate.held())
    ], { discard: true })
  )

/**
 * A PgClient over a `pg` pool of our own, as `PgClient.layer` would make it (the same options, the
 * same first `SELECT 1` and its errors, bounded by the pool's connection timeout or 5 s), so that
 * the pool can be watched: @effect/sql-pg keeps the pool it makes to itself. Beside it, the gate
 * that keeps the units of work within the pool's size and `maxWaiting` (see `DatabaseGate`).
 */
export const pooledClient = (config: Pg.PoolConfig & { readonly max: number }, maxWaiting: number) => {
  const gate = makeDatabaseGate({ connections: config.max, maxWaiting, keeps: true })
  return PgClient.layerFromPool({
    applicationName: config.application_name,
    acquire: Effect.gen(function*() {
      const pool = yield* Effect.acquireRelease(
        Effect.sync(() => {
          const pool = new Pg.Pool(config)
          // An idle connection's error (the server restarted) is the pool's to handle: it drops it.
          pool.on("error", () => {})
          return pool
        }),
        (pool) => Effect.promise(() => pool.end()).pipe(Effect.interruptible, Effect.timeoutOption(1000))
      )
      yield* Effect.tryPromise({
        try: () => pool.query("SELECT 1"),
        catch: (cause) => new SqlError({ cause, message: "PgClient: Failed to connect" })
      }).pipe(
        Effect.timeoutFail({
          duration: Duration.millis(config.connectionTimeoutMillis ?? 5_000),
          onTimeout: () => new SqlError({ cause: new Error("Connection timed out"), message: "PgClient: Connection timed out" })
        })
      )
      // Before the pool ends, which waits for every client lent: the kept ones are lent.
      yield* Effect.addFinalizer(() => Effect.sync(gate.close))
      yield* Effect.forkScoped(Effect.repeat(samplePool(pool, gate), Schedule.spaced("1 second")))
      yield* Effect.forkScoped(Effect.repeat(Effect.sync(gate.sweep), Schedule.spaced("1 second")))
      return pool
    })
  }).pipe(Layer.merge(Layer.succeed(DatabaseGateRef, gate)))
}
