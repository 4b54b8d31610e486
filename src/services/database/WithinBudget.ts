import { Cause, Duration, Effect, Exit, Fiber, FiberId } from "effect"
import type { Unavailable } from "../../domain/Errors.js"
import { budgetExpired, type DatabaseGate, DatabaseGateRef } from "./DatabaseGate.js"
import { endsUnit, runsUnit, type Unit } from "./UnitConnection.js"

/** A unit that ended with a value or a domain failure left its kept connection as it found it. */
const reusable = <A, E>(exit: Exit.Exit<Exit.Exit<A, E>>): boolean =>
  Exit.isSuccess(exit) && (Exit.isSuccess(exit.value) || Cause.isFailType(exit.value.cause))

// setTimeout fires at once for delays beyond a signed 32-bit count of milliseconds (about 24 days).
const maxTimerMillis = 2_147_483_647

/**
 * Fails with `unavailable` when `self` takes longer than `budget`, and then interrupts it (which
 * cancels a statement on the server and rolls back an open transaction). Unlike `Effect.timeout`,
 * it forks one fiber and arms one plain timer, with no sleeping fiber and no race: this runs once
 * per request.
 *
 * A caller that goes away (a client that disconnects, a deadline) does not interrupt the work: it
 * runs on in its own fiber, still within its budget, and its answer is dropped. @effect/sql-pg
 * cancels an interrupted statement with `pg_cancel_backend(pid)` from another connection, and by
 * the time that runs the connection may already serve another request, whose statement is then
 * cancelled instead: under load, every client disconnect failed some other caller's request with
 * `internal`. The budget still interrupts, as it must to free a connection from a database that
 * does not answer; the same mistake is then possible, but only for a statement that ends just as
 * its budget runs out.
 *
 * The work holds a permit of the process's `DatabaseGate` from before it starts until it ends, so
 * work detached from callers that left still counts; the time spent waiting for the permit is
 * part of the budget.
 */
export const withinBudget = <A, E, R>(
  self: Effect.Effect<A, E, R>,
  budget: Duration.Duration,
  gate: DatabaseGate = DatabaseGateRef.defaultValue()
) => {
  const budgetMillis = Math.min(Duration.toMillis(budget), maxTimerMillis)
  // Between the permit and the fork that gives it back when it ends, nothing may interrupt: the
  // permit would be lost. The waits either side are interruptible.
  return Effect.uninterruptibleMask((restore) => {
    // One a run: the same effect run twice is two units.
    const unit: Unit = { gate, kept: undefined }
    return Effect.flatMap(restore(gate.enter(budgetMillis, unit)), (waited) =>
      // The fiber answers with `self`'s exit as its value, so it never ends in a failure to report
      // as unhandled (interruption by the timer is not reported either). Setting the log level for
      // the fork instead, with `Effect.locally`, copied the fiber's locals twice per unit of work.
      Effect.flatMap(Effect.forkDaemon(Effect.withFiberRuntime<Exit.Exit<A, E>, never, R>((own) => (runsUnit(own, unit), Effect.exit(restore(self))))), (fiber) => {
        fiber.addObserver((exit) => {
          endsUnit(fiber)
          const kept = unit.kept
          unit.kept = undefined
          // A connection kept by a unit that was interrupted or died mid-statement goes back to the pool.
          if (kept !== undefined && !reusable(exit)) gate.giveBack(kept)
          gate.leave(kept !== undefined && reusable(exit) ? kept : undefined)
        })
        return restore(Effect.async<A, E | Unavailable>((resume) => {
          let answered = false
          const timer = setTimeout(() => {
            // Outside any fiber (a timer's callback): the interruption is an effect of its own.
            Effect.runFork(Fiber.interruptAsFork(fiber, FiberId.none))
            if (answered) return
            answered = true
            resume(Effect.fail(budgetExpired()))
          }, Math.max(1, budgetMillis - waited))
          fiber.addObserver((exit) => {
            clearTimeout(timer)
            if (answered) return
            answered = true
            // A failure here is the fiber's own interruption (by the timer, or at shutdown): it has no value.
            resume(exit._tag === "Success" ? exit.value : Exit.failCause(exit.cause))
          })
          // The caller has gone: its answer is no longer wanted, but the work keeps its budget.
          return Effect.sync(() => {
            answered = true
          })
        }))
      }))
  })
}

