import { Effect } from "effect"
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort } from "../e2e/support/Processes.js"
import { type Daemon, spawnDaemon } from "./Daemon.js"

/** A service behind haproxy: the ports its replicas listen on. */
export interface Balanced {
  readonly name: string
  readonly replicaPorts: ReadonlyArray<number>
}

export interface ServerState {
  readonly status: string
  /** Requests (in mode http: each HTTP/1.1 request or HTTP/2 stream) sent to it so far. */
  readonly requests: number
}

export interface HaProxy extends Daemon {
  /** `http://127.0.0.1:<port>` of each service's frontend, by service name. */
  readonly urls: Readonly<Record<string, string>>
  /** haproxy's view of each replica (`org/1`: "UP", "DOWN", ...) and the requests it sent it, from its statistics page. */
  readonly serverStates: () => Promise<Record<string, ServerState>>
}

/** How often haproxy asks each replica's `/readyz`; with `fall 2`, a replica leaves within ~1 s. */
export const checkIntervalMillis = 500

/**
 * The configuration, and why it is this one.
 *
 * `mode http`, not `mode tcp`: haproxy then ends the clients' connections itself and balances each
 * request (each HTTP/2 stream) on its own, so a replica that stops or dies takes no client
 * connection with it: clients keep theirs to haproxy, and the next request goes to a live replica.
 * In `mode tcp` a client's connection is spliced to one replica for its whole life: an HTTP/2
 * client (one connection for everything) stays on one replica, and each restart breaks its
 * connection and fails what was in flight on it or sent just then: the rolling restart in
 * `mode tcp`, drain and all, failed 6 of 9,091 calls (`socket hang up`, REFUSED_STREAM, `other
 * side closed`), and kill -9 answered `canceled` and `aborted` (docs/reliability.md).
 *
 * One frontend port takes both HTTP/1.1 and h2c: in `mode http` haproxy 2.6 recognises the HTTP/2
 * preface on a clear-text bind. To the replicas it speaks h2c (`proto h2`), so a gRPC call stays
 * HTTP/2 end to end (trailers), and a replica's shutdown reaches haproxy as a GOAWAY, which ends
 * a connection without failing a stream on it, where an HTTP/1.1 keep-alive connection closed by
 * the replica can race a request haproxy is just sending on it.
 *
 * Retries: `retry-on conn-failure` only (a request that never reached a replica: it refused the
 * connection, being stopped or dead), with `option redispatch 1` so that each retry goes to the
 * other replica. Not `empty-response`: a request that reached a replica may have been executed,
 * and only the client knows whether repeating it is safe (a workflow without a workflow id is not).
 *
 * Health: `GET /readyz` every 500 ms; two failures take a replica out, two successes put it back.
 * A replica told to stop answers `/readyz` with 503 for SHUTDOWN_DRAIN_MS before it stops
 * accepting (see README), so haproxy stops sending it requests while it still serves them.
 * Without the drain, a request that reaches a replica just as it closes fails at the client
 * (REFUSED_STREAM on an HTTP/2 client's stream, `other side closed` on an HTTP/1.1 connection),
 * `retry-on conn-failure` notwithstanding: 3 of ~13,800 calls over three rolling restarts.
 */
export const serviceProxyConfiguration = (services: ReadonlyArray<Balanced>, ports: ReadonlyArray<number>, statsPort: number) =>
  [
    "global",
    "  maxconn 4096",
    "defaults",
    "  mode http",
    "  timeout connect 1s",
    "  timeout client 30s",
    "  timeout server 30s",
    "  timeout http-keep-alive 10s",
    "  timeout check 1s",
    "  retries 3",
    "  option redispatch 1",
    "  retry-on conn-failure",
    `  default-server inter ${checkIntervalMillis} fall 2 rise 2`,
    ...services.flatMap((service, i) => [
      `frontend ${service.name}`,
      `  bind 127.0.0.1:${ports[i]}`,
      `  default_backend ${service.name}_replicas`,
      `backend ${service.name}_replicas`,
      "  balance roundrobin",
      "  option httpchk",
      // With a Host (h2: :authority): haproxy 2.6's h2 check without one met a socket error here.
      `  http-check send meth GET uri /readyz ver HTTP/1.1 hdr host ${service.name}`,
      ...service.replicaPorts.map((port, r) => `  server ${r} 127.0.0.1:${port} proto h2 check`)
    ]),
    "listen stats",
    `  bind 127.0.0.1:${statsPort}`,
    "  mode http",
    "  stats enable",
    "  stats uri /stats",
    ""
  ].join("\n")

/** haproxy's CSV statistics: `<service>/<replica>` -> its state, for the replicas only. */
const parseStates = (csv: string): Record<string, ServerState> => {
  const [header, ...rows] = csv.trim().split("\n")
  const columns = header!.replace(/^# /, "").split(",")
  const proxy = columns.indexOf("pxname")
  const server = columns.indexOf("svname")
  const status = columns.indexOf("status")
  const sessions = columns.indexOf("stot")
  const states: Record<string, ServerState> = {}
  for (const row of rows) {
    const fields = row.split(",")
    const name = fields[proxy]!
    if (!name.endsWith("_replicas") || fields[server] === "BACKEND") continue
    states[`${name.slice(0, -"_replicas".length)}/${fields[server]}`] = { status: fields[status]!, requests: Number(fields[sessions]) }
  }
  return states
}

/**
 * haproxy in front of every service's replicas, one frontend port per service, from a generated
 * configuration in a temporary directory; stopped when the scope closes. Answers once haproxy
 * serves its statistics (the replicas may still be coming up: see `serverStates`).
 */
export const startHaProxy = (binary: string, services: ReadonlyArray<Balanced>) =>
  Effect.gen(function*() {
    const ports = yield* Effect.promise(() => Promise.all(services.map(() => freePort())))
    const statsPort = yield* Effect.promise(freePort)
    const directory = mkdtempSync(join(tmpdir(), "onboarding-haproxy-"))
    yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(directory, { recursive: true, force: true })))
    const config = join(directory, "haproxy.cfg")
    writeFileSync(config, serviceProxyConfiguration(services, ports, statsPort))
    // -db: stay in the foreground, so that the scope's SIGTERM stops it.
    const daemon = yield* spawnDaemon("haproxy", () => spawn(binary, ["-db", "-f", config], { stdio: ["ignore", "pipe", "pipe"] }))
    const serverStates = async () => parseStates(await (await fetch(`http://127.0.0.1:${statsPort}/stats;csv`)).text())
    const deadline = Date.now() + 10_000
    for (;;) {
      const answered = yield* Effect.promise(() => serverStates().then(() => true, () => false))
      if (answered) break
      if (Date.now() > deadline || daemon.child.exitCode !== null) {
        return yield* Effect.die(new Error(`haproxy did not start:\n${daemon.output()}`))
      }
      yield* Effect.sleep("100 millis")
    }
    const urls = Object.fromEntries(services.map((service, i) => [service.name, `http://127.0.0.1:${ports[i]}`]))
    return { ...daemon, urls, serverStates } satisfies HaProxy
  })
