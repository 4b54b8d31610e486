import { Context, Effect, Metric } from "effect"
import { Unavailable } from "../domain/Errors.js"

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
 */
export interface DatabaseGate {
  /** A permit for one unit of work, waiting for it at most `budgetMillis`; the time waited. */
  readonly enter: (budgetMillis: number) => Effect.Effect<number, Unavailable>
  /** Gives a permit back: to the first waiter, or to the free ones. */
  readonly leave: () => void
  /** Units holding a permit (running, or detached from a caller that left). */
  readonly held: () => number
  readonly waiting: () => number
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

export const makeDatabaseGate = (options: { readonly connections: number; readonly maxWaiting: number }): DatabaseGate => {
  let held = 0
  // Insertion-ordered: the first waiter is the oldest, and a leaving one is removed in O(1).
  const waiters = new Set<() => void>()
  const busy = Effect.zipRight(
    Metric.increment(busyRefusals),
    Effect.fail(
      new Unavailable({
        message:
          `the database is busy: ${options.maxWaiting} units of work already wait for a connection (DATABASE_POOL_MAX_WAITING); try again later`
      })
    )
  )

  const leave = () => {
    const next = waiters.values().next()
    if (next.done) {
      held--
      return
    }
    waiters.delete(next.value)
    next.value()
  }

  const enter = (budgetMillis: number): Effect.Effect<number, Unavailable> =>
    Effect.suspend(() => {
      if (held < options.connections) {
        held++
        return Effect.succeed(0)
      }
      if (waiters.size >= options.maxWaiting) return busy
      return Effect.async<number, Unavailable>((resume) => {
        const since = performance.now()
        let granted = false
        const grant = () => {
          granted = true
          clearTimeout(timer)
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
          if (granted) leave()
          else waiters.delete(grant)
        })
      })
    })

  return { enter, leave, held: () => held, waiting: () => waiters.size }
}

/**
 * The gate of the process's database, provided beside its SqlClient. A SqlClient made without one
 * (a test's own) has no bound: as many permits as there are units.
 */
export class DatabaseGateRef extends Context.Reference<DatabaseGateRef>()("DatabaseGate", {
  defaultValue: (): DatabaseGate => makeDatabaseGate({ connections: Number.POSITIVE_INFINITY, maxWaiting: 0 })
}) {}
