import { describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Exit, Fiber } from "effect"
import { makeDatabaseGate } from "../../src/services/DatabaseGate.js"
import { withinBudget } from "../../src/services/Transient.js"

/*
 * The bound on the database work a process holds (issue 24, item 1): a permit per connection, kept
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
