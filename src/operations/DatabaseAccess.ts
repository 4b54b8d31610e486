import { Context, type Effect, type Stream } from "effect"

/**
 * What the edge needs of the database, declared here so that `src/transports` names no module of
 * `src/services`: the services implement both (`services/database/DatabaseHealth.ts`,
 * `services/database/Transient.ts`), and `src/main` provides them.
 */

/** Whether the database answers: what readiness probes and gRPC health report. */
export interface Readiness {
  /** The last probe's state at once (only a process's first question waits for a probe). */
  readonly isReady: Effect.Effect<boolean>
  /** That state, then each change of it (gRPC health Watch). */
  readonly changes: Stream.Stream<boolean>
}

export class DatabaseHealth extends Context.Tag("DatabaseHealth")<DatabaseHealth, Readiness>() {}

/**
 * The references a unit of work reads from its fiber rather than asks for by type (its budget,
 * the database's gate): a port keeps them in the context its calls run in (`callContext` in transports/PortApp.ts),
 * which holds nothing else of the process. Left out, every call would run on their defaults.
 */
export class UnitOfWorkReferences extends Context.Tag("UnitOfWorkReferences")<
  UnitOfWorkReferences,
  // Any: a list of references of different services, each copied as it is.
  ReadonlyArray<Context.Tag<any, any>>
>() {}

/**
 * What a transport does for its reads to run in its call's fiber (services/database/InCaller.ts):
 * runs the call with `readsInCaller`, forgets it with `callEnded`, and, when its client leaves,
 * interrupts it with `callerGone` (never mid-unit).
 */
export { callEnded, callerGone, readsInCaller } from "../services/database/InCaller.js"
