import { Deferred, Effect, Exit, type Fiber } from "effect"
import type { Unavailable } from "../../src/domain/Errors.js"
import { callEnded, readsInCaller } from "../../src/operations/DatabaseAccess.js"

/**
 * `effect` run as Connect and GraphQL run a call (services/database/InCaller.ts): in a fiber of
 * its own whose reads run in it, answered at once when a read's budget runs out, else by the
 * fiber's end. The fiber is handed to `started` (a test's look at it).
 */
export const asCallerOfReads = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  started: (fiber: Fiber.RuntimeFiber<A, E>) => void = () => {}
): Effect.Effect<A, E | Unavailable, R> =>
  Effect.flatMap(Deferred.make<A, E | Unavailable>(), (answer) =>
    Effect.flatMap(Effect.forkDaemon(readsInCaller(effect, (failure) => Deferred.unsafeDone(answer, Exit.fail(failure)))), (fiber) => {
      started(fiber)
      fiber.addObserver((exit) => {
        callEnded(fiber)
        Deferred.unsafeDone(answer, exit)
      })
      return Deferred.await(answer)
    }))
