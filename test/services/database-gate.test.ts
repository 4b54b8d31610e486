import { describe, expect, it } from "@effect/vitest"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import { Deferred, Duration, Effect, Exit, Fiber, Scope } from "effect"
import { type DatabaseGate, type KeptConnection, makeDatabaseGate } from "../../src/services/database/DatabaseGate.js"
import { keepingUnit } from "../../src/services/database/UnitConnection.js"
import { withinBudget } from "../../src/services/database/WithinBudget.js"

/*
 * The bound on the database work a process holds (docs/reliability.md §2b): a permit per connection, kept
 * until the unit of work ends (also after its caller left), a bounded queue for the rest, and
 * nothing left behind in the queue by a caller that went away.
 */

/** (Live clock: the gate's timers are real ones.) Lets the scheduler run the fibers that were just resumed or forked. */
const settle = Effect.sleep(Duration.millis(10))

describe("DatabaseGate", () => {
  it.live("admits one unit per connection, queues up to maxWaiting, and refuses the next at once", () =>
    Effect.gen(function*() {
      const gate = makeDatabaseGate({ connections: 2, maxWaiting: 1 })
      expect(yield* gate.enter(1_000)).toBe(0)
      expect(yield* gate.enter(1_000)).toBe(0)
      const queued = yield* Effect.fork(gate.enter(1_000))
      yield* settle
      expect(gate.waiting()).toBe(1)
      const refused = yield* Effect.exit(gate.enter(1_000))
      expect(refused).toMatchObject({ _tag: "Failure" })
      expect(String(Exit.isFailure(refused) && refused.cause)).toContain("DATABASE_POOL_MAX_WAITING")
      gate.leave()
      yield* Fiber.join(queued)
      expect(gate.waiting()).toBe(0)
      expect(gate.held()).toBe(2)
    }))

  it.live("a permit is taken at once only while one is free, never ahead of a waiter", () =>
    Effect.gen(function*() {
      const gate = makeDatabaseGate({ connections: 1, maxWaiting: 1 })
      expect(gate.tryEnter()).toBe(true)
      expect(gate.tryEnter()).toBe(false)
      const queued = yield* Effect.fork(gate.enter(1_000))
      yield* settle
      // Given back, the permit goes to the waiter: nothing is free to take at once.
      gate.leave()
      expect(gate.tryEnter()).toBe(false)
      yield* Fiber.join(queued)
      expect({ held: gate.held(), waiting: gate.waiting() }).toEqual({ held: 1, waiting: 0 })
      gate.leave()
      expect(gate.tryEnter()).toBe(true)
    }))

  it.live("hands a permit to the waiters in the order they came", () =>
    Effect.gen(function*() {
      const gate = makeDatabaseGate({ connections: 1, maxWaiting: 10 })
      yield* gate.enter(1_000)
      const order: Array<number> = []
      const waiters = yield* Effect.forEach([1, 2, 3], (n) =>
        Effect.fork(Effect.zipRight(gate.enter(1_000), Effect.sync(() => order.push(n)))))
      yield* settle
      for (const _ of waiters) {
        gate.leave()
        yield* settle
      }
      yield* Fiber.joinAll(waiters)
      expect(order).toEqual([1, 2, 3])
      expect(gate.held()).toBe(1)
    }))

  it.live("a waiter whose caller goes away leaves the queue, and its turn passes on", () =>
    Effect.gen(function*() {
      const gate = makeDatabaseGate({ connections: 1, maxWaiting: 10 })
      yield* gate.enter(1_000)
      const gone = yield* Effect.fork(gate.enter(1_000))
      const next = yield* Effect.fork(gate.enter(1_000))
      yield* settle
      expect(gate.waiting()).toBe(2)
      yield* Fiber.interrupt(gone)
      expect(gate.waiting()).toBe(1)
      gate.leave()
      yield* Fiber.join(next)
      expect(gate.held()).toBe(1)
      expect(gate.waiting()).toBe(0)
    }))

  it.live("a waiter past its budget is answered unavailable and leaves the queue", () =>
    Effect.gen(function*() {
      const gate = makeDatabaseGate({ connections: 1, maxWaiting: 10 })
      yield* gate.enter(1_000)
      const exit = yield* Effect.exit(gate.enter(30))
      expect(exit).toMatchObject({ _tag: "Failure" })
      expect(gate.waiting()).toBe(0)
      gate.leave()
      expect(gate.held()).toBe(0)
    }))
})

describe("withinBudget with a gate", () => {
  it.live("work whose caller went away keeps its permit until it ends", () =>
    Effect.gen(function*() {
      const gate = makeDatabaseGate({ connections: 1, maxWaiting: 0 })
      const release = yield* Deferred.make<void>()
      const caller = yield* Effect.fork(withinBudget(Deferred.await(release), Duration.seconds(5), gate))
      yield* settle
      expect(gate.held()).toBe(1)
      yield* Fiber.interrupt(caller)
      // The caller is gone; its work runs on, detached, and still counts.
      expect(gate.held()).toBe(1)
      const refused = yield* Effect.exit(withinBudget(Effect.void, Duration.seconds(5), gate))
      expect(String(Exit.isFailure(refused) && refused.cause)).toContain("busy")
      yield* Deferred.succeed(release, undefined)
      yield* settle
      expect(gate.held()).toBe(0)
      expect(yield* withinBudget(Effect.succeed("served"), Duration.seconds(5), gate)).toBe("served")
    }))

  it.live("a unit that waited for its permit still ends unavailable at its budget, and gives the permit back", () =>
    Effect.gen(function*() {
      const gate = makeDatabaseGate({ connections: 1, maxWaiting: 1 })
      const release = yield* Deferred.make<void>()
      yield* Effect.fork(withinBudget(Deferred.await(release), Duration.seconds(5), gate))
      yield* settle
      const waiting = yield* Effect.fork(withinBudget(Effect.never, Duration.millis(200), gate))
      yield* Effect.sleep(Duration.millis(150))
      yield* Deferred.succeed(release, undefined)
      const exit = yield* Fiber.await(waiting)
      expect(String(Exit.isFailure(exit) && exit.cause)).toContain("Unavailable: the database did not answer within the operation's budget")
      yield* settle
      expect(gate.held()).toBe(0)
    }))
})

describe("DatabaseGate with kept connections", () => {
  /** A kept connection whose giving back is counted (the gate never touches the connection itself). */
  const keptOne = Effect.gen(function*() {
    const scope = yield* Scope.make()
    let givenBack = 0
    yield* Scope.addFinalizer(scope, Effect.sync(() => givenBack++))
    return { kept: { connection: {} as SqlConnection.Connection, scope }, givenBack: () => givenBack }
  })

  /** Where a unit's kept connection is put by the gate. */
  const unitSlot = () => ({ kept: undefined as KeptConnection | undefined })

  /** The kept connection a unit entering now is handed, if any. */
  const handedTo = (gate: DatabaseGate) =>
    Effect.gen(function*() {
      const unit = unitSlot()
      yield* gate.enter(1_000, unit)
      return unit.kept
    })

  /** A gate of two permits, both held, and two kept connections to give back with them. */
  const twoHeld = Effect.gen(function*() {
    const gate = makeDatabaseGate({ connections: 2, maxWaiting: 5, keeps: true })
    const a = yield* keptOne
    const b = yield* keptOne
    yield* gate.enter(1_000)
    yield* gate.enter(1_000)
    return { gate, a, b }
  })

  it.live("a kept connection given back with its permit goes to the next unit, a waiter first, and stands for a permit meanwhile", () =>
    Effect.gen(function*() {
      const gate = makeDatabaseGate({ connections: 1, maxWaiting: 5, keeps: true })
      const { givenBack, kept } = yield* keptOne
      yield* gate.enter(1_000, unitSlot())
      const second = unitSlot()
      const waiter = yield* Effect.fork(gate.enter(1_000, second))
      yield* settle
      gate.leave(kept)
      yield* Fiber.join(waiter)
      expect(second.kept).toBe(kept)
      gate.leave(kept)
      // Free, in place of the only permit: a unit that cannot take it over gets the permit, and the connection goes back.
      expect(gate.held()).toBe(0)
      yield* gate.enter(1_000)
      yield* settle
      expect(givenBack()).toBe(1)
      expect(gate.held()).toBe(1)
    }))

  it.live("a unit entering takes a free kept connection; closing gives back the free ones and every one after", () =>
    Effect.gen(function*() {
      const { a, b, gate } = yield* twoHeld
      gate.leave(a.kept)
      expect(yield* handedTo(gate)).toBe(a.kept)
      gate.leave(b.kept)
      gate.close()
      yield* settle
      expect(b.givenBack()).toBe(1)
      gate.leave(a.kept)
      yield* settle
      expect(a.givenBack()).toBe(1)
      expect(gate.held()).toBe(0)
    }))

  it.live("a free kept connection no unit took between two sweeps goes back to the pool", () =>
    Effect.gen(function*() {
      const { a, b, gate } = yield* twoHeld
      gate.leave(a.kept)
      gate.leave(b.kept)
      gate.sweep()
      // Taken and given back since: b stays; a, untaken, goes at the next sweep.
      expect(yield* handedTo(gate)).toBe(b.kept)
      gate.leave(b.kept)
      gate.sweep()
      yield* settle
      expect({ a: a.givenBack(), b: b.givenBack() }).toEqual({ a: 1, b: 0 })
      gate.sweep()
      yield* settle
      expect({ a: a.givenBack(), b: b.givenBack() }).toEqual({ a: 1, b: 1 })
    }))

  it.effect("units keep one connection fewer than there are permits: a client is left for the pool's other callers", () =>
    Effect.sync(() => {
      const gate = makeDatabaseGate({ connections: 3, maxWaiting: 5, keeps: true })
      expect([gate.claim(), gate.claim(), gate.claim()]).toEqual([true, true, false])
      gate.giveBack()
      expect(gate.claim()).toBe(true)
      expect(makeDatabaseGate({ connections: 1, maxWaiting: 5, keeps: true }).keeps).toBe(false)
    }))

  // Found by its fiber while it runs, and forgotten as it ends, not at the next collection: under
  // load, ended units piling up in the map cost its table a rehash after another.
  it.live("a unit is found by its fiber while it runs, and forgotten when it ends", () =>
    Effect.gen(function*() {
      const gate = makeDatabaseGate({ connections: 2, maxWaiting: 5, keeps: true })
      let fiber: Fiber.RuntimeFiber<unknown, unknown> | undefined
      const during = yield* withinBudget(
        Effect.withFiberRuntime<ReturnType<typeof keepingUnit>>((own) => {
          fiber = own
          return Effect.succeed(keepingUnit(own))
        }),
        Duration.seconds(5),
        gate
      )
      expect(during?.gate).toBe(gate)
      expect(fiber === undefined ? "the unit did not run" : keepingUnit(fiber)).toBeUndefined()
    }))
})
