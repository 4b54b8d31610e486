import { describe, expect, it } from "@effect/vitest"
import { Cause, Deferred, Duration, Effect, Exit, Fiber } from "effect"
import { PassThrough } from "node:stream"
import { BudgetExpired, makeDatabaseGate } from "../../src/services/database/DatabaseGate.js"
import { asBudgetFailure } from "../../src/services/database/InCaller.js"
import { withinBudget } from "../../src/services/database/WithinBudget.js"
import { ResolverFibers } from "../../src/transports/graphql/GraphqlCall.js"
import { asCallerOfReads } from "../support/UnitWays.js"

/*
 * A read run in its caller's fiber (Connect, gRPC, GraphQL: services/database/InCaller.ts) keeps
 * what a forked unit of work guarantees: its budget answers the caller at once, its permit is held
 * until its work (a statement's cancellation included) has ended, and a client that leaves does
 * not interrupt it mid-statement.
 */

const settle = Effect.sleep(Duration.millis(20))
const read = <A, E, R>(self: Effect.Effect<A, E, R>, budget: Duration.Duration, gate: ReturnType<typeof makeDatabaseGate>) =>
  withinBudget(self, budget, gate, true)

/** A statement that never answers, whose cancellation ends only when `cancelled` is released (as @effect/sql-pg's waits for pg_cancel_backend). */
const stuckStatement = (cancelled: Deferred.Deferred<void>, cancelling: { started: boolean }) =>
  Effect.async<never>(() =>
    Effect.suspend(() => {
      cancelling.started = true
      return Deferred.await(cancelled)
    })
  )

describe("a read in its caller's fiber", () => {
  it.live("runs in that fiber, with no fork, holding its permit until it ends; a write is forked", () =>
    Effect.gen(function*() {
      const gate = makeDatabaseGate({ connections: 1, maxWaiting: 0 })
      const [call, reading, held, writing] = yield* asCallerOfReads(
        Effect.all([
          Effect.fiberId,
          read(Effect.fiberId, Duration.seconds(5), gate),
          read(Effect.sync(gate.held), Duration.seconds(5), gate),
          withinBudget(Effect.fiberId, Duration.seconds(5), gate)
        ])
      )
      expect(reading).toEqual(call)
      expect(writing).not.toEqual(call)
      expect(held).toBe(1)
      expect(gate.held()).toBe(0)
    }))

  it.live("past its budget, its caller is answered at once; the permit waits for the statement's cancellation", () =>
    Effect.gen(function*() {
      const gate = makeDatabaseGate({ connections: 1, maxWaiting: 0 })
      const cancelled = yield* Deferred.make<void>()
      const cancelling = { started: false }
      let fiber: Fiber.RuntimeFiber<unknown, unknown> | undefined
      const answer = yield* Effect.flip(asCallerOfReads(read(stuckStatement(cancelled, cancelling), Duration.millis(50), gate), (started) => {
        fiber = started
      }))
      expect(answer).toBeInstanceOf(BudgetExpired)
      expect(answer.message).toBe("the database did not answer within the operation's budget (DATABASE_OPERATION_TIMEOUT_MS); try again later")
      // Answered while the cancellation still waits, which holds the permit.
      expect(cancelling.started).toBe(true)
      expect(gate.held()).toBe(1)
      yield* Deferred.succeed(cancelled, undefined)
      const ended = yield* Fiber.await(fiber!)
      expect(gate.held()).toBe(0)
      // The fiber ends interrupted by the budget: what its note is told is the caller's answer.
      expect(Exit.isFailure(ended) && Cause.failureOption(asBudgetFailure(ended.cause))).toMatchObject({ _tag: "Some", value: { _tag: "Unavailable" } })
    }))

  it.live("counts against the gate's bound: another unit is refused while it holds the only permit", () =>
    Effect.gen(function*() {
      const gate = makeDatabaseGate({ connections: 1, maxWaiting: 0 })
      const release = yield* Deferred.make<void>()
      const first = yield* Effect.fork(asCallerOfReads(read(Deferred.await(release), Duration.seconds(5), gate)))
      yield* settle
      expect(gate.held()).toBe(1)
      const refused = yield* Effect.exit(asCallerOfReads(read(Effect.void, Duration.seconds(5), gate)))
      expect(String(Exit.isFailure(refused) && refused.cause)).toContain("busy")
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(first)
      expect(gate.held()).toBe(0)
    }))

  it.live("waits for its permit within its budget, and is answered unavailable when none comes", () =>
    Effect.gen(function*() {
      const gate = makeDatabaseGate({ connections: 1, maxWaiting: 1 })
      const release = yield* Deferred.make<void>()
      yield* Effect.fork(asCallerOfReads(read(Deferred.await(release), Duration.seconds(5), gate)))
      yield* settle
      const exit = yield* Effect.exit(asCallerOfReads(read(Effect.void, Duration.millis(50), gate)))
      expect(String(Exit.isFailure(exit) && exit.cause)).toContain("Unavailable")
      expect(gate.waiting()).toBe(0)
      yield* Deferred.succeed(release, undefined)
      yield* settle
      expect(gate.held()).toBe(0)
    }))

  it.live("a GraphQL client that leaves interrupts it only once its unit has ended; the call's other fibers at once", () =>
    Effect.gen(function*() {
      const gate = makeDatabaseGate({ connections: 2, maxWaiting: 0 })
      const release = yield* Deferred.make<void>()
      const interrupted = { reading: false, waiting: false }
      const response = new PassThrough()
      const fibers = new ResolverFibers(response)
      let reading: Fiber.RuntimeFiber<unknown, unknown> | undefined
      let waiting: Fiber.RuntimeFiber<unknown, unknown> | undefined
      const readDone = asCallerOfReads(
        read(Effect.onInterrupt(Deferred.await(release), () => Effect.sync(() => (interrupted.reading = true))), Duration.seconds(5), gate),
        (fiber) => fibers.watch((reading = fiber))
      )
      const waitDone = asCallerOfReads(
        Effect.onInterrupt(Deferred.await(release), () => Effect.sync(() => (interrupted.waiting = true))),
        (fiber) => fibers.watch((waiting = fiber))
      )
      const both = yield* Effect.fork(Effect.all([Effect.exit(readDone), Effect.exit(waitDone)], { concurrency: 2 }))
      yield* settle
      expect(gate.held()).toBe(1)
      response.destroy()
      yield* settle
      expect(interrupted).toEqual({ reading: false, waiting: true })
      expect(gate.held()).toBe(1)
      yield* Deferred.succeed(release, undefined)
      const [readExit] = yield* Fiber.join(both)
      // Its unit ended as it would have (not interrupted mid-statement), then the fiber was.
      expect(interrupted.reading).toBe(false)
      expect(Exit.isInterrupted(readExit)).toBe(true)
      expect(gate.held()).toBe(0)
      expect(reading !== undefined && waiting !== undefined).toBe(true)
    }))
})
