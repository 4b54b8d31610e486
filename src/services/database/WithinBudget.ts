import { Duration, Effect, Exit, Fiber, FiberId } from "effect"
import type { Unavailable } from "../../domain/Errors.js"
import { budgetExpired, type DatabaseGate, DatabaseGateRef } from "./DatabaseGate.js"
import { inCaller, readsIn } from "./InCaller.js"
import { endsUnit, leaves, reusable, runsUnit, type Unit } from "./UnitConnection.js"


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
 * So the work runs in a fiber of its own, except a read whose caller answers its expiry itself
 * and never interrupts it mid-unit (`InCaller.ts`: Connect, gRPC, GraphQL): in its caller's, a
 * REST client that leaves would interrupt it, and the budget's answer would wait for the
 * statement's cancellation. What a forked unit costs (docs/benchmarks.md §5) is kept to the fork,
 * one timer and one observer.
 *
 * The work holds a permit of the process's `DatabaseGate` from before it starts until it ends, so
 * work detached from callers that left still counts; the time spent waiting for the permit is
 * part of the budget.
 */
export const withinBudget = <A, E, R>(
  self: Effect.Effect<A, E, R>,
  budget: Duration.Duration,
  gate: DatabaseGate = DatabaseGateRef.defaultValue(),
  /** A read: its failure past the budget reaches its caller unchanged, so it may run in its caller's fiber. */
  read = false
) => {
  const budgetMillis = Math.min(Duration.toMillis(budget), maxTimerMillis)
  return Effect.withFiberRuntime<A, E | Unavailable, R>((caller) => {
    // One a run: the same effect run twice is two units.
    const unit: Unit = { gate, kept: undefined }
    const answer = read ? readsIn(caller) : undefined
    if (answer !== undefined) return inCaller(self, caller, answer, unit, budgetMillis)
    // Between the permit and the fork that gives it back when it ends, nothing may interrupt: the
    // permit would be lost. The waits either side are interruptible.
    return Effect.uninterruptibleMask((restore) => {
      const detach = (waited: number) => detached(self, restore, unit, Math.max(1, budgetMillis - waited))
      // A free permit is taken at once, with no wait to make interruptible.
      return gate.tryEnter(unit) ? detach(0) : Effect.flatMap(restore(gate.enter(budgetMillis, unit)), detach)
    })
  })
}

/**
 * A unit of work forked from its caller, and the caller's wait for it: one object a unit, told
 * once when the unit's fiber ends (the permit given back, the caller answered if it still waits),
 * and once if the budget runs out first.
 */
class Detached<A, E> {
  answer: ((effect: Effect.Effect<A, E | Unavailable>) => void) | undefined = undefined
  timer: ReturnType<typeof setTimeout> | undefined = undefined
  constructor(readonly fiber: Fiber.RuntimeFiber<Exit.Exit<A, E>>, readonly unit: Unit) {}

  ended(exit: Exit.Exit<Exit.Exit<A, E>>): void {
    endsUnit(this.fiber)
    leaves(this.unit, Exit.isSuccess(exit) && reusable(exit.value))
    if (this.timer !== undefined) clearTimeout(this.timer)
    const answer = this.answer
    if (answer === undefined) return
    this.answer = undefined
    // A failure here is the fiber's own interruption (by the timer, or at shutdown): it has no value.
    answer(exit._tag === "Success" ? exit.value : Exit.failCause(exit.cause))
  }

  expired(): void {
    this.timer = undefined
    // Outside any fiber (a timer's callback): the interruption is an effect of its own.
    Effect.runFork(Fiber.interruptAsFork(this.fiber, FiberId.none))
    const answer = this.answer
    if (answer === undefined) return
    this.answer = undefined
    answer(Effect.fail(budgetExpired()))
  }
}

const detached = <A, E, R>(
  self: Effect.Effect<A, E, R>,
  restore: <X, Y, Z>(effect: Effect.Effect<X, Y, Z>) => Effect.Effect<X, Y, Z>,
  unit: Unit,
  remainingMillis: number
): Effect.Effect<A, E | Unavailable, R> =>
  // The fiber answers with `self`'s exit as its value, so it never ends in a failure to report
  // as unhandled (interruption by the timer is not reported either). Setting the log level for
  // the fork instead, with `Effect.locally`, copied the fiber's locals twice per unit of work.
  Effect.flatMap(Effect.forkDaemon(Effect.withFiberRuntime<Exit.Exit<A, E>, never, R>((own) => (runsUnit(own, unit), Effect.exit(restore(self))))), (fiber) => {
    const run = new Detached(fiber, unit)
    fiber.addObserver((exit) => run.ended(exit))
    return restore(Effect.async<A, E | Unavailable>((resume) => {
      // Ended already (its permit given back): its answer is at hand.
      const done = fiber.unsafePoll()
      if (done !== null) return resume(done._tag === "Success" ? done.value : Exit.failCause(done.cause))
      run.answer = resume
      run.timer = setTimeout(() => run.expired(), remainingMillis)
      // The caller has gone: its answer is no longer wanted, but the work keeps its budget.
      return Effect.sync(() => {
        run.answer = undefined
      })
    }))
  })
