import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, FiberRef, FiberRefs, HashSet, Logger, LogLevel } from "effect"
import { deleteUnsetFiberRefs } from "../../src/transports/UnsetFiberRefs.js"

const held = <A>(ref: FiberRef.FiberRef<A>) =>
  Effect.map(Effect.getFiberRefs, (refs) => HashSet.has(FiberRefs.fiberRefs(refs), ref))

/** What a fiber forked from the current one reads of `ref` (awaited, not joined: a join would copy the child's refs back). */
const forkedRead = <A>(ref: FiberRef.FiberRef<A>) =>
  Effect.flatMap(Effect.fork(FiberRef.get(ref)), (fiber) => Effect.flatten(Fiber.await(fiber)))

describe("deleteUnsetFiberRefs", () => {
  it.effect("deletes a ref restored to its unset value, and what the fiber and its children read is unchanged", () =>
    Effect.gen(function*() {
      const ref = FiberRef.unsafeMake("unset")
      yield* Effect.locally(Effect.void, ref, "set for a while")
      expect(yield* held(ref)).toBe(true)
      expect(yield* deleteUnsetFiberRefs).toBeGreaterThanOrEqual(1)
      expect(yield* held(ref)).toBe(false)
      expect(yield* FiberRef.get(ref)).toBe("unset")
      expect(yield* forkedRead(ref)).toBe("unset")
    }))

  it.effect("keeps a ref set to another value, and the logger and level a process configured", () =>
    Effect.gen(function*() {
      const ref = FiberRef.unsafeMake("unset")
      yield* FiberRef.set(ref, "set")
      const loggers = yield* FiberRef.get(FiberRef.currentLoggers)
      yield* deleteUnsetFiberRefs
      expect(yield* held(ref)).toBe(true)
      expect(yield* FiberRef.get(ref)).toBe("set")
      expect(yield* FiberRef.get(FiberRef.currentMinimumLogLevel)).toEqual(LogLevel.Warning)
      expect(yield* FiberRef.get(FiberRef.currentLoggers)).toBe(loggers)
    }).pipe(Logger.withMinimumLogLevel(LogLevel.Warning), Effect.provide(Logger.replace(Logger.defaultLogger, Logger.jsonLogger))))

  it.effect("keeps a ref at its unset value that a forked fiber would see changed", () =>
    Effect.gen(function*() {
      // A child reads `fork(parent's value)` of a ref its parent holds, and the unset value of one it does not.
      const depth = FiberRef.unsafeMake(0, { fork: (n) => n + 1 })
      yield* FiberRef.set(depth, 0)
      expect(yield* forkedRead(depth)).toBe(1)
      yield* deleteUnsetFiberRefs
      expect(yield* held(depth)).toBe(true)
      expect(yield* forkedRead(depth)).toBe(1)
    }))
})
