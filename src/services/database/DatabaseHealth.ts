import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Duration, Effect, Layer, Ref, Schedule, Stream, SubscriptionRef } from "effect"
import { DatabaseHealth } from "../../operations/DatabaseAccess.js"
import { BudgetExpired } from "./DatabaseGate.js"
import { withinBudget } from "./WithinBudget.js"

/**
 * The most a health answer may lag the database: it is probed at most once per this interval,
 * whoever asks and however often (HEALTH_CHECK_INTERVAL_MS).
 */
export class HealthCheckInterval extends Context.Reference<HealthCheckInterval>()("HealthCheckInterval", {
  defaultValue: () => Duration.seconds(1)
}) {}

/** How long one probe may take before the database counts as not answering. */
const probeBudget = Duration.seconds(2)

/**
 * Whether the database answers (`DatabaseHealth`), from probes of the process's SqlClient.
 *
 * Health is open to anyone (no token), so it must cost the database nothing a caller can
 * multiply: a probe per request would take the shared pool's connections from authenticated
 * callers (docs/reliability.md §2a, health probes). Every caller reads one shared state instead:
 * `isReady` answers the last probe's state at once, and starts a new probe when that state is
 * older than the interval (one probe in flight at a time); only a process's very first question
 * waits for its first probe. `changes` (gRPC Watch) streams that same state, refreshed by one
 * fiber for all watchers while there are any.
 *
 * A probe that fails (refused, reset, an error) makes the state not ready. A probe that merely
 * runs out of time (a saturated pool, a table lock, PgBouncer's queue) leaves the state as it was:
 * every replica of a deployment shares the one database, so such a wait says nothing against this
 * replica, and a balancer that took every replica out for it turned a slowdown into an outage
 * (docs/deployment.md). Nor does `/readyz` wait for that probe: the balancer's own check timeout
 * (1 s in our haproxy recipe) is shorter than a probe's budget.
 */
export const DatabaseHealthLive = Layer.scoped(
  DatabaseHealth,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const interval = yield* HealthCheckInterval
    const state = yield* SubscriptionRef.make<boolean | undefined>(undefined)
    // Within a budget rather than Effect.timeout: a probe that gives up must not interrupt (and
    // so cancel by backend pid) a statement whose connection may serve someone else by then.
    const probe = withinBudget(sql`select 1`, probeBudget).pipe(
      Effect.as<boolean | "slow">(true),
      Effect.catchAll((error) => Effect.succeed(error instanceof BudgetExpired ? "slow" as const : false)),
      Effect.catchAllCause(() => Effect.succeed(false)),
      Effect.flatMap((outcome) =>
        SubscriptionRef.get(state).pipe(Effect.flatMap((was) => {
          // Slow, the state stays; a process whose first probe is slow had a database that
          // answered its migrations a moment ago.
          const ready = outcome === "slow" ? was ?? true : outcome
          // Watchers are told of changes only: a set wakes every one of them.
          return Effect.as(was === ready ? Effect.void : SubscriptionRef.set(state, ready), ready)
        }))
      )
    )
    // Single-flight: the cache runs at most one probe at a time, and its age counts from the
    // probe's start, so probes start at most once per interval.
    const refreshed = yield* Effect.cachedWithTTL(probe, interval)
    const isReady = Effect.flatMap(
      SubscriptionRef.get(state),
      (known) => known === undefined ? refreshed : Effect.as(Effect.forkDaemon(refreshed), known)
    )

    const watchers = yield* Ref.make(0)
    yield* refreshed.pipe(
      Effect.whenEffect(Ref.get(watchers).pipe(Effect.map((n) => n > 0))),
      Effect.repeat(Schedule.spaced(interval)),
      Effect.forkScoped
    )

    const changes: Stream.Stream<boolean> = Stream.unwrapScoped(
      Effect.gen(function*() {
        yield* Effect.acquireRelease(Ref.update(watchers, (n) => n + 1), () => Ref.update(watchers, (n) => n - 1))
        // A state no older than the interval first; the shared state's changes after it.
        yield* refreshed
        return state.changes
      })
    ).pipe(
      Stream.filter((ready): ready is boolean => ready !== undefined),
      Stream.changes
    )

    return { isReady, changes } as const
  })
)

/** With no database (the in-memory layers), always ready. */
export const DatabaseHealthInMemory = Layer.succeed(DatabaseHealth, { isReady: Effect.succeed(true), changes: Stream.make(true) })
