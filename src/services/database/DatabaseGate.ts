import type * as SqlConnection from "@effect/sql/SqlConnection"
import { Context, Effect, Exit, Metric, Scope } from "effect"
import { Unavailable } from "../../domain/Errors.js"

/**
 * How much database work a process holds for its callers, and its own queue for the rest.
 *
 * A unit of work takes a permit before it starts and keeps it until it ends, also when its caller
 * has gone (a unit runs on, detached, within its budget: see `withinBudget`). There are as many
 * permits as the pool has connections, so pg-pool's own queue never holds more than a few: it
 * cannot drop a waiter, an interrupted one stays in it, and each release hands its connection
 * through the queue in one synchronous recursion, which a few thousand abandoned waiters overflow,
 * ending the process (docs/reliability.md §2b). Units without a permit wait here instead, at most
 * `maxWaiting` of them: one more is answered `unavailable` at once. A waiter whose caller goes
 * away, or whose budget runs out, leaves the queue at once; a permit is handed to the next waiter
 * by resuming its fiber, which Effect schedules, so no release recurses.
 *
 * A permit also carries the connection a unit kept, if the gate keeps them (`KeptConnection`):
 * given back with the permit, it goes with the permit to the next waiter, or waits among the free
 * ones in place of a permit, so units never hold more of the pool's connections than there are
 * permits.
 */
export interface DatabaseGate {
  /**
   * A permit for one unit of work, waiting for it at most `budgetMillis`; the time waited. A
   * connection kept from an earlier unit (`KeptConnection`) comes with it, into `unit.kept`.
   */
  readonly enter: (budgetMillis: number, unit?: { kept: KeptConnection | undefined }) => Effect.Effect<number, Unavailable>
  /** A permit at once, as `enter` gives one without waiting; false (nothing taken) when none is free. */
  readonly tryEnter: (unit?: { kept: KeptConnection | undefined }) => boolean
  /**
   * Gives a permit back, to the first waiter or to the free ones, with the connection the unit
   * kept when another unit may use it (undefined once given back to the pool).
   */
  readonly leave: (kept?: KeptConnection) => void
  /** Whether a unit may keep a connection reserved: only a gate over a pool of as many connections as permits. */
  readonly keeps: boolean
  /**
   * Claims one of the connections units may keep: one fewer than the permits, so that a unit
   * without one always gives its client back to the pool between statements, where the pool's
   * other callers (a health probe, a statement's cancellation) wait for one. False when none is left.
   */
  readonly claim: () => boolean
  /** Gives a kept connection back to the pool; without one, a claim its reservation did not use. */
  readonly giveBack: (kept?: KeptConnection) => void
  /**
   * Gives back to the pool the free kept connections no unit has taken since the last sweep, so
   * that the pool's idle timeout closes what a quieter load no longer needs.
   */
  readonly sweep: () => void
  /** Gives the kept connections no unit holds back to the pool, and every one after it: the pool is closing. */
  readonly close: () => void
  /** Units holding a permit (running, or detached from a caller that left). */
  readonly held: () => number
  readonly waiting: () => number
  /** Kept connections no unit holds: lent by the pool, idle here. */
  readonly free: () => number
}

/**
 * A pool client reserved with `sql.reserve` and kept from one unit of work to the next, so that a
 * statement outside a transaction runs on it as it stands, not through `sql.unsafe`, which
 * takes a client from the pool, makes a scope and a span, and gives the client back, once per
 * statement (docs/benchmarks.md §5). Closing its scope gives the client back to the pool.
 *
 * It never holds a transaction (a unit gives its kept connection back before it opens one), and
 * a permit stands for it: a connection is kept by a unit holding a permit, or free here among
 * `idle` in place of one, so the pool never lends more connections to units than it has.
 */
export interface KeptConnection {
  readonly connection: SqlConnection.Connection
  readonly scope: Scope.CloseableScope
}

export const busyRefusals = Metric.counter("onboarding_db_busy_refusals_total", {
  description:
    "Units of work refused at once (unavailable) because DATABASE_POOL_MAX_WAITING others already waited for a connection"
})

/** What a caller is told when the database fails transiently past the retries: nothing was done. */
export const databaseUnavailable = () => new Unavailable({ message: "the database is unavailable; try again later" })

/**
 * The unit's budget ran out while its work had started: a statement may still be queued in the
 * database and run later (@effect/sql-pg cancels it through the pool, which a saturated pool
 * cannot serve). A transaction's work rolls back when it is interrupted; a single write may still
 * happen, so a create says so (`outcomeUnknown` in Records.ts).
 */
export class BudgetExpired extends Unavailable {}

export const budgetExpired = () =>
  new BudgetExpired({
    message: "the database did not answer within the operation's budget (DATABASE_OPERATION_TIMEOUT_MS); try again later"
  })

export const makeDatabaseGate = (
  options: { readonly connections: number; readonly maxWaiting: number; readonly keeps?: boolean }
): DatabaseGate => {
  let held = 0
  let closed = false
  // Kept connections in all (held by units or free), and how many there may be.
  let kept = 0
  const keepable = options.keeps === true ? options.connections - 1 : 0
  const claim = () => {
    if (kept >= keepable || closed) return false
    kept++
    return true
  }
  const giveBack = (connection?: KeptConnection) => {
    kept--
    if (connection !== undefined) Effect.runFork(Scope.close(connection.scope, Exit.void))
  }
  // Kept connections no unit holds, each in place of a permit: held + idle.length <= connections.
  const idle: Array<KeptConnection> = []
  // The fewest free since the last sweep: those below it were not taken in that time.
  let untaken = 0
  // Insertion-ordered: the first waiter is the oldest, and a leaving one is removed in O(1).
  const waiters = new Set<(kept: KeptConnection | undefined) => void>()
  const busy = Effect.zipRight(
    Metric.increment(busyRefusals),
    Effect.fail(
      new Unavailable({
        message:
          `the database is busy: ${options.maxWaiting} units of work already wait for a connection (DATABASE_POOL_MAX_WAITING); try again later`
      })
    )
  )

  const leave = (connection?: KeptConnection) => {
    const next = waiters.values().next()
    if (next.done) {
      held--
      if (connection === undefined) return
      if (closed) giveBack(connection)
      else idle.push(connection)
      return
    }
    waiters.delete(next.value)
    next.value(connection)
  }

  // A free permit is never taken ahead of a waiter: one given back goes to the first waiter.
  const tryEnter = (unit?: { kept: KeptConnection | undefined }): boolean => {
    if (held + idle.length >= options.connections && idle.length === 0) return false
    held++
    const free = idle.pop()
    if (idle.length < untaken) untaken = idle.length
    if (unit !== undefined) unit.kept = free
    else if (free !== undefined) giveBack(free)
    return true
  }
  const atOnce = Effect.succeed(0)

  const enter = (budgetMillis: number, unit?: { kept: KeptConnection | undefined }): Effect.Effect<number, Unavailable> =>
    Effect.suspend(() => {
      if (tryEnter(unit)) return atOnce
      if (waiters.size >= options.maxWaiting) return busy
      return Effect.async<number, Unavailable>((resume) => {
        const since = performance.now()
        let granted = false
        let handed: KeptConnection | undefined
        const grant = (connection: KeptConnection | undefined) => {
          granted = true
          handed = connection
          clearTimeout(timer)
          if (unit !== undefined) unit.kept = connection
          else if (connection !== undefined) giveBack(connection)
          resume(Effect.succeed(performance.now() - since))
        }
        const timer = setTimeout(() => {
          waiters.delete(grant)
          resume(Effect.fail(databaseUnavailable()))
        }, budgetMillis)
        waiters.add(grant)
        // The caller has gone: out of the queue, or the permit it was just handed passed on.
        return Effect.sync(() => {
          clearTimeout(timer)
          if (!granted) return waiters.delete(grant)
          if (unit !== undefined) unit.kept = undefined
          leave(unit === undefined ? undefined : handed)
        })
      })
    })

  const sweep = () => {
    for (const connection of idle.splice(0, untaken)) giveBack(connection)
    untaken = idle.length
  }

  const close = () => {
    closed = true
    for (const connection of idle.splice(0)) giveBack(connection)
  }

  return { enter, tryEnter, leave, keeps: keepable > 0, claim, giveBack, sweep, close, held: () => held, waiting: () => waiters.size, free: () => idle.length }
}

/**
 * The gate of the process's database, provided beside its SqlClient. A SqlClient made without one
 * (a test's own) has no bound: as many permits as there are units.
 */
export class DatabaseGateRef extends Context.Reference<DatabaseGateRef>()("DatabaseGate", {
  defaultValue: (): DatabaseGate => makeDatabaseGate({ connections: Number.POSITIVE_INFINITY, maxWaiting: 0 })
}) {}
