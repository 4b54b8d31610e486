import { Duration, Effect, Layer, Stream, SubscriptionRef } from "effect"
import { DatabaseHealth } from "../../operations/DatabaseAccess.js"

/**
 * The first step of a shutdown (SHUTDOWN_DRAIN_MS): the process still serves every request, but
 * says it is not ready (`/readyz` 503, gRPC health NOT_SERVING), so that a load balancer takes it
 * out of rotation while it still answers. Only then do the ports stop accepting: without the
 * drain, requests the balancer sends in the moment before its checks notice reach a closed port
 * or a connection being closed.
 *
 * One per process, shared by its ports: `drain` sets the state and waits once, however many
 * ports ask for it.
 */
export class Draining extends Effect.Service<Draining>()("Draining", {
  scoped: (drainMillis: number) =>
    Effect.gen(function*() {
      const state = yield* SubscriptionRef.make(false)
      const drain = yield* Effect.cached(
        drainMillis === 0 ? Effect.void : SubscriptionRef.set(state, true).pipe(
          Effect.zipRight(Effect.logInfo(`draining: not ready for ${drainMillis} ms before the ports close`)),
          Effect.zipRight(Effect.sleep(Duration.millis(drainMillis)))
        )
      )
      return { state, drain } as const
    })
}) {}

/**
 * Readiness as health answers report it: the database answers, and the process is not draining.
 * Replaces the `DatabaseHealth` it is built on.
 */
export const drainingHealth = Layer.effect(
  DatabaseHealth,
  Effect.gen(function*() {
    const database = yield* DatabaseHealth
    const { state } = yield* Draining
    return DatabaseHealth.of({
      isReady: Effect.flatMap(SubscriptionRef.get(state), (draining) => draining ? Effect.succeed(false) : database.isReady),
      changes: Stream.zipLatest(database.changes, state.changes).pipe(
        Stream.map(([ready, draining]) => ready && !draining),
        Stream.changes
      )
    })
  })
)
