import { Effect } from "effect"
import { freePort, type Running, startProcess, stopProcess } from "../e2e/support/Processes.js"
import type { ServiceUrls } from "../e2e/support/StyleClient.js"
import { type HaProxy, startHaProxy } from "./HaProxy.js"
import { startPgBouncer } from "./PgBouncer.js"
import { freshServerDatabase } from "./TestDatabase.js"

export const services = ["org", "profile", "license", "workflow"] as const
export type ServiceName = typeof services[number]

/** One per-service process of a service behind haproxy, on a port of its own that stays its own across restarts. */
export interface Replica {
  /** `workflow/1`: the name haproxy's statistics give it. */
  readonly name: string
  readonly service: ServiceName
  readonly port: number
  /** The process now running, if any. */
  running: Running | undefined
}

/**
 * What every replica runs with. A pool of 4 per process: 8 replicas are 32 clients of PgBouncer,
 * which shares 20 server connections among them. The drain is what makes a rolling restart
 * invisible: a replica told to stop answers `/readyz` with 503 for 1.5 s, more than haproxy needs
 * to take it out (two failed checks 500 ms apart), before it stops accepting.
 */
const replicaEnvironment = { DATABASE_POOL_SIZE: "4", ACCESS_LOG: "off", SHUTDOWN_DRAIN_MS: "1500" }

/** PgBouncer's server connections to PostgreSQL, shared by all replicas. */
const bouncerPoolSize = 20

/**
 * The production shape, twice over: two replicas of each service behind haproxy, every replica
 * reaching a fresh PostgreSQL database through PgBouncer in transaction pooling mode. All eight
 * replicas start at once on the empty database (they race to migrate it through PgBouncer), then
 * haproxy; answers once haproxy sees every replica up. Everything stops when the scope closes.
 */
export const topology = (tools: { readonly haproxy: string; readonly pgbouncer: string }, serverUrl: string) =>
  Effect.gen(function*() {
    const database = yield* freshServerDatabase(serverUrl)
    const bouncer = yield* startPgBouncer(tools.pgbouncer, database.url, { poolSize: bouncerPoolSize })
    const replicas: Array<Replica> = []
    for (const service of services) {
      for (const index of [0, 1]) {
        replicas.push({ name: `${service}/${index}`, service, port: yield* Effect.promise(freePort), running: undefined })
      }
    }
    /** `version`: another build's `dist/main/` and what it runs with (an upgrade's new version). */
    const start = async (replica: Replica, version?: { readonly main: string; readonly env: Record<string, string> }) => {
      replica.running = await startProcess(replica.service, {
        ...replicaEnvironment,
        ...version?.env,
        DATABASE_URL: bouncer.url,
        PORT: String(replica.port)
      }, 1, version?.main)
    }
    yield* Effect.addFinalizer(() =>
      Effect.promise(() =>
        Promise.all(replicas.map((replica) => replica.running === undefined ? undefined : stopProcess(replica.running)))
      )
    )
    yield* Effect.promise(() => Promise.all(replicas.map((replica) => start(replica))))
    const haproxy = yield* startHaProxy(
      tools.haproxy,
      services.map((name) => ({ name, replicaPorts: replicas.filter((r) => r.service === name).map((r) => r.port) }))
    )
    const urls: ServiceUrls = { org: haproxy.urls["org"]!, profile: haproxy.urls["profile"]!, license: haproxy.urls["license"]!, workflow: haproxy.urls["workflow"]! }
    const stateOf = (replica: Replica) => Effect.promise(() => haproxy.serverStates()).pipe(Effect.map((states) => states[replica.name]?.status))
    /** Until haproxy's checks see the replica in `state` ("UP", or "DOWN"); fails after `within`. */
    const awaitState = (replica: Replica, state: "UP" | "DOWN", within = 10_000) =>
      Effect.gen(function*() {
        const deadline = Date.now() + within
        for (;;) {
          const seen = yield* stateOf(replica)
          if (seen === state) return
          if (Date.now() > deadline) return yield* Effect.dieMessage(`haproxy sees ${replica.name} ${seen}, not ${state}`)
          yield* Effect.sleep("100 millis")
        }
      })
    yield* Effect.forEach(replicas, (replica) => awaitState(replica, "UP"), { discard: true })
    return { database, bouncer, replicas, haproxy: haproxy satisfies HaProxy, urls, start, awaitState }
  })

export type Topology = Effect.Effect.Success<ReturnType<typeof topology>>
