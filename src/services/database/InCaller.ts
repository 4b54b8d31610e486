import { Cause, Effect, Equal, type Fiber, FiberId, HashSet } from "effect"
import type { Unavailable } from "../../domain/Errors.js"
import { budgetExpired } from "./DatabaseGate.js"
import { endsUnit, leaves, reusable, runsAUnit, runsUnit, type Unit } from "./UnitConnection.js"

/**
 * A read runs in its caller's fiber, a fork fewer a unit of work (docs/benchmarks.md §5), where
 * the caller allows it (`readsInCaller`: Connect, gRPC and GraphQL calls, EffectCall.ts and
 * GraphqlCall.ts). `withinBudget` forks a unit so that a client who leaves cannot interrupt it
 * mid-statement (@effect/sql-pg then cancels by backend pid, which may by then serve another
 * caller), and so that its caller is answered `unavailable` the moment its budget runs out, while
 * the unit's fiber still waits for its statement's cancellation. Such a caller keeps both:
 *
 * - when its client leaves, it interrupts a fiber running a unit only as the unit ends (`callerGone`);
 * - as a unit's budget runs out, it is answered at once with the unit's `BudgetExpired`, which a
 *   read passes on unchanged (a write, whose answer then depends on the call's own state, such as
 *   a create's `outcomeUnknown`, is forked), and tells its call's note so. The unit's fiber is
 *   interrupted, waits for the cancellation, gives its permit back, and ends interrupted by
 *   `budgetRanOut` (with the unit's `BudgetExpired` in its cause, unless a handler dropped it:
 *   `asBudgetFailure`).
 */
const callers = new WeakMap<Fiber.RuntimeFiber<unknown, unknown>, (failure: Unavailable) => void>()

/** Who interrupts a unit run in its caller's fiber as its budget runs out. */
const budgetRanOut = FiberId.make(-1, 0)

/**
 * Runs `effect` letting its reads run in its own fiber: `expired` answers its caller at once when
 * a read's budget runs out. The caller forgets the fiber as it ends (`callEnded`).
 */
export const readsInCaller = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  expired: (failure: Unavailable) => void
): Effect.Effect<A, E, R> =>
  Effect.withFiberRuntime((fiber) => {
    callers.set(fiber, expired)
    return effect
  })

/** `fiber`, run by `readsInCaller`, has ended: a WeakMap's dead entries pile up under load (UnitConnection.ts). */
export const callEnded = (fiber: Fiber.RuntimeFiber<unknown, unknown>): void => {
  callers.delete(fiber)
}

/** How `fiber`'s caller is answered at once, when a read may run in it now (not inside another unit). */
export const readsIn = (fiber: Fiber.RuntimeFiber<unknown, unknown>): ((failure: Unavailable) => void) | undefined =>
  runsAUnit(fiber) ? undefined : callers.get(fiber)

/** Fibers whose caller went while they ran a unit: interrupted as the unit ends. */
const gone = new WeakSet<Fiber.RuntimeFiber<unknown, unknown>>()

/**
 * `fiber`'s caller has gone (a GraphQL client that left): the fiber is interrupted now, or, while it
 * runs a unit, as that unit ends, so that no statement is cancelled mid-way.
 */
export const callerGone = (fiber: Fiber.RuntimeFiber<unknown, unknown>): void => {
  if (runsAUnit(fiber)) gone.add(fiber)
  else fiber.unsafeInterruptAsFork(fiber.id())
}

/** A cause that ended a read's fiber by its budget, as the failure its caller was told; any other as it is. */
export const asBudgetFailure = <E>(cause: Cause.Cause<E>): Cause.Cause<E | Unavailable> =>
  Cause.isInterruptedOnly(cause) && HashSet.some(Cause.interruptors(cause), (id) => Equal.equals(id, budgetRanOut))
    ? Cause.fail(budgetExpired())
    : cause

/**
 * `self` as a unit in its caller's fiber: its permit taken (the wait interruptible, as a forked
 * unit's caller's), then `self` run with a timer that answers the caller and interrupts the fiber
 * when the budget runs out. The permit is given back by the unit's own end; the transports that run
 * reads in their fibers interrupt none mid-unit (`callerGone`).
 */
export const inCaller = <A, E, R>(
  self: Effect.Effect<A, E, R>,
  caller: Fiber.RuntimeFiber<unknown, unknown>,
  answer: (failure: Unavailable) => void,
  unit: Unit,
  budgetMillis: number
): Effect.Effect<A, E | Unavailable, R> =>
  Effect.uninterruptibleMask((restore) => {
    const run = (waitedMillis: number): Effect.Effect<A, E | Unavailable, R> => {
      runsUnit(caller, unit)
      let expired = false
      const timer = setTimeout(() => {
        expired = true
        callEnded(caller)
        caller.unsafeInterruptAsFork(budgetRanOut)
        answer(budgetExpired())
      }, Math.max(1, budgetMillis - waitedMillis))
      return Effect.flatMap(Effect.exit(restore(self)), (exit): Effect.Effect<A, E | Unavailable> => {
        clearTimeout(timer)
        endsUnit(caller)
        leaves(unit, reusable(exit))
        // Its caller went meanwhile: interrupted as the mask ends.
        if (gone.delete(caller)) caller.unsafeInterruptAsFork(caller.id())
        // Its caller was answered; the fiber ends as interrupted (see above).
        return expired ? Effect.fail(budgetExpired()) : exit
      })
    }
    return unit.gate.tryEnter(unit) ? run(0) : Effect.flatMap(restore(unit.gate.enter(budgetMillis, unit)), run)
  })
