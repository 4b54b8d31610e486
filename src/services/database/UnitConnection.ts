import type * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import type { SqlError } from "@effect/sql/SqlError"
import { Cause, Effect, Exit, type Fiber, Scope } from "effect"
import type { DatabaseGate, KeptConnection } from "./DatabaseGate.js"

/** A unit of work running within its budget (`withinBudget`): its gate, and the connection it keeps, if any. */
export interface Unit {
  readonly gate: DatabaseGate
  kept: KeptConnection | undefined
}

// By fiber: a unit's statements run in the fiber `withinBudget` forks for it (or in its caller's,
// `InCaller.ts`), and looking a fiber
// up here costs far less than a service in that fiber's context, which is a context write a unit.
const units = new WeakMap<Fiber.RuntimeFiber<unknown, unknown>, Unit>()

/** Makes `fiber` the fiber of `unit`, for its statements to find (see `keptConnection`). */
export const runsUnit = (fiber: Fiber.RuntimeFiber<unknown, unknown>, unit: Unit): void => {
  units.set(fiber, unit)
}

/**
 * Forgets `fiber`'s unit as it ends. A WeakMap would drop it at the next collection anyway, but
 * under load thousands of ended units pile up between collections, and the map's table grows and
 * is rehashed for them, a cost on every call under load (docs/benchmarks.md §5, "What each part
 * of a call costs").
 */
export const endsUnit = (fiber: Fiber.RuntimeFiber<unknown, unknown>): void => {
  units.delete(fiber)
}

/** Whether `fiber` runs a unit now. */
export const runsAUnit = (fiber: Fiber.RuntimeFiber<unknown, unknown>): boolean => units.has(fiber)

/** A unit that ended with a value or a domain failure left its kept connection as it found it. */
export const reusable = <A, E>(exit: Exit.Exit<A, E>): boolean => Exit.isSuccess(exit) || Cause.isFailType(exit.cause)

/**
 * Gives `unit`'s permit back as it ends, with the connection it kept when that is `reusable`; a
 * connection kept by a unit that was interrupted or died mid-statement goes back to the pool.
 */
export const leaves = (unit: Unit, reusable: boolean): void => {
  const kept = unit.kept
  unit.kept = undefined
  const keep = kept !== undefined && reusable
  if (kept !== undefined && !keep) unit.gate.giveBack(kept)
  unit.gate.leave(keep ? kept : undefined)
}

/** The unit `fiber` runs, when its gate lets it keep a connection. */
export const keepingUnit = (fiber: Fiber.RuntimeFiber<unknown, unknown>): Unit | undefined => {
  const unit = units.get(fiber)
  return unit?.gate.keeps === true ? unit : undefined
}

/**
 * Gives the connection `fiber`'s unit keeps back to the pool: before it opens a transaction (which
 * takes a pool client of its own), and after a statement on it failed (the client may be broken).
 */
export const giveBackKept = (fiber: Fiber.RuntimeFiber<unknown, unknown>): void => {
  const unit = units.get(fiber)
  const kept = unit?.kept
  if (unit === undefined || kept === undefined) return
  unit.kept = undefined
  unit.gate.giveBack(kept)
}

/**
 * A pool client reserved for `unit`, kept until it is given back. The wait for it cannot be
 * interrupted: `sql.reserve` interrupted while the pool is busy loses its client
 * (test/services/sql-reserve-upstream.test.ts). It is bounded by the pool's connection timeout,
 * and the unit's permit stands for the client, so the pool has one for it.
 */
const reserve = (sql: SqlClient.SqlClient, unit: Unit): Effect.Effect<SqlConnection.Connection, SqlError> =>
  Effect.uninterruptible(
    Effect.flatMap(Scope.make(), (scope) =>
      Scope.extend(sql.reserve, scope).pipe(
        Effect.onError(() => Effect.zipRight(Effect.sync(() => unit.gate.giveBack()), Scope.close(scope, Exit.void))),
        Effect.map((connection) => {
          unit.kept = { connection, scope }
          return connection
        })
      ))
  )

/**
 * The connection `unit` keeps, reserved now if it keeps none yet; undefined when it may not keep
 * one (as many are kept as may be: see `DatabaseGate.claim`).
 */
export const keptConnection = (
  sql: SqlClient.SqlClient,
  unit: Unit
): SqlConnection.Connection | Effect.Effect<SqlConnection.Connection, SqlError> | undefined =>
  unit.kept?.connection ?? (unit.gate.claim() ? reserve(sql, unit) : undefined)
