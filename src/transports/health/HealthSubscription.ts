import { Effect, Fiber, Runtime, Stream } from "effect"

/** Told the health state now (when known) and at every change after. */
export interface HealthListener {
  readonly told: (ready: boolean) => void
}

export interface HealthSubscription {
  /** Adds a listener, which may be told the state before `watch` returns. */
  readonly watch: (listener: HealthListener) => void
  /** Removes a listener (again: nothing). */
  readonly unwatch: (listener: HealthListener) => void
}

/**
 * One subscription to the health state for every Watch stream of a port, held while there is at
 * least one, rather than an Effect stream per Watch (the state's changes, merged with the drain's,
 * turned into an async iterable and cut by the call's signal): that holds fibers and channel
 * executors per stream, heap and CPU an anonymous caller can multiply (what each costs:
 * docs/reliability.md §2h). A listener here is an entry in a Set.
 *
 * A new listener is told the latest state at once when the subscription already runs (it is
 * refreshed every HEALTH_CHECK_INTERVAL_MS while anyone watches, so it is no older than that);
 * otherwise the first state the subscription reads.
 */
export const healthSubscription = (changes: Stream.Stream<boolean>) =>
  Effect.gen(function*() {
    const runtime = yield* Effect.runtime<never>()
    const listeners = new Set<HealthListener>()
    let latest: boolean | undefined
    let running: Fiber.RuntimeFiber<void> | undefined

    const publish = (ready: boolean) =>
      Effect.sync(() => {
        latest = ready
        for (const listener of listeners) listener.told(ready)
      })
    const stop = () => {
      if (running !== undefined) Runtime.runFork(runtime)(Fiber.interrupt(running))
      running = undefined
      // Nobody refreshes it from here on: the next watcher waits for a fresh one.
      latest = undefined
    }
    yield* Effect.addFinalizer(() => Effect.sync(stop))

    const subscription: HealthSubscription = {
      watch: (listener) => {
        listeners.add(listener)
        if (running === undefined) running = Runtime.runFork(runtime)(Stream.runForEach(changes, publish))
        else if (latest !== undefined) listener.told(latest)
      },
      unwatch: (listener) => {
        if (listeners.delete(listener) && listeners.size === 0) stop()
      }
    }
    return subscription
  })
