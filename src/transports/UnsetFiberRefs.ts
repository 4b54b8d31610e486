import { Effect, Equal, Fiber, FiberRef, FiberRefs, HashSet, Runtime } from "effect"

/** What `ref` holds in a fiber that never set it, read where nothing is set: Effect's default runtime. */
const unsetValue = <A>(ref: FiberRef.FiberRef<A>): A => Runtime.runSync(Runtime.defaultRuntime)(FiberRef.get(ref))

/**
 * Deletes from the current fiber each FiberRef that holds what it would hold unset, and that a
 * fiber forked from it would see unset too; what any fiber reads is unchanged.
 *
 * Why: a fiber's FiberRefs are one map, copied whole every time a fiber sets one (a provided
 * service, a call's note) and every time one is forked or a runtime runs an effect. Building the
 * process leaves refs behind at their unset values (a log span, a scheduling priority, an
 * interruption cause, restored by `Effect.locally` and friends but not removed), and each request's
 * fibers inherit them from the runtime the port captures, to be copied again several times a
 * call (the refs and the cost: docs/benchmarks.md §5, "What each part of a call costs"). Run it
 * before capturing a runtime.
 */
export const deleteUnsetFiberRefs: Effect.Effect<number> = Effect.gen(function*() {
  const refs = yield* Effect.getFiberRefs
  let deleted = 0
  for (const ref of HashSet.toValues(FiberRefs.fiberRefs(refs))) {
    const value = FiberRefs.getOrDefault(refs, ref)
    if (!Equal.equals(value, unsetValue(ref))) continue
    // A ref may change its value as it is forked: deleted, a child would see the unset value instead.
    const forked = yield* Effect.flatMap(Effect.fork(FiberRef.get(ref)), Fiber.await)
    if (forked._tag !== "Success" || !Equal.equals(forked.value, value)) continue
    yield* FiberRef.delete(ref)
    deleted++
  }
  return deleted
})
