import { Effect } from "effect"
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort } from "../e2e/support/Processes.js"
import { type Daemon, spawnDaemon } from "./Daemon.js"

/** A PostgreSQL node behind the proxy: its port, and its Patroni REST API's. */
export interface PatroniNode {
  readonly name: string
  readonly port: number
  readonly apiPort: number
}

/** How often haproxy asks each node's Patroni whether it is the primary. */
export const primaryCheckMillis = 500

/**
 * haproxy in front of the Patroni cluster, as Patroni's own documentation sets it up: `mode tcp`
 * (the PostgreSQL protocol passes through), every node a server, and only the one whose Patroni
 * answers `OPTIONS /primary` with 200 in service. `on-marked-down shutdown-sessions` cuts every
 * connection to a node the moment it stops being the primary, so no client goes on writing to a
 * demoted node (it would meet 25006 at best) and every pool learns at once that its connections
 * are dead, instead of at its next timeout. `fall 2` at 500 ms: a node out within about a second;
 * `rise 1`: a new primary in at its first good answer. The client timeouts are long: a pooled
 * connection may sit idle for minutes. docs/deployment.md shows this file.
 */
export const primaryProxyConfiguration = (nodes: ReadonlyArray<PatroniNode>, port: number, statsPort: number) =>
  [
    "global",
    "  maxconn 1000",
    "defaults",
    "  mode tcp",
    "  timeout connect 1s",
    "  timeout client 1h",
    "  timeout server 1h",
    "  timeout check 1s",
    "listen primary",
    `  bind 127.0.0.1:${port}`,
    "  option httpchk",
    "  http-check send meth OPTIONS uri /primary",
    "  http-check expect status 200",
    `  default-server inter ${primaryCheckMillis} fall 2 rise 1 on-marked-down shutdown-sessions`,
    ...nodes.map((node) => `  server ${node.name} 127.0.0.1:${node.port} check port ${node.apiPort}`),
    "listen stats",
    `  bind 127.0.0.1:${statsPort}`,
    "  mode http",
    "  stats enable",
    "  stats uri /stats",
    ""
  ].join("\n")

export interface PrimaryProxy extends Daemon {
  readonly port: number
  /** The nodes haproxy has in service now (the primary's, or none; "UP 1/2" included). */
  readonly upNodes: () => Promise<Array<string>>
}

/** haproxy routing to the Patroni leader, on a free port; stopped when the scope closes. */
export const startPrimaryProxy = (binary: string, nodes: ReadonlyArray<PatroniNode>) =>
  Effect.gen(function*() {
    const port = yield* Effect.promise(freePort)
    const statsPort = yield* Effect.promise(freePort)
    const directory = mkdtempSync(join(tmpdir(), "onboarding-haproxy-primary-"))
    yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(directory, { recursive: true, force: true })))
    const config = join(directory, "haproxy.cfg")
    writeFileSync(config, primaryProxyConfiguration(nodes, port, statsPort))
    const daemon = yield* spawnDaemon("haproxy", () => spawn(binary, ["-db", "-f", config], { stdio: ["ignore", "pipe", "pipe"] }))
    const upNodes = async () => {
      const csv = await (await fetch(`http://127.0.0.1:${statsPort}/stats;csv`, { signal: AbortSignal.timeout(2_000) })).text()
      const [header, ...rows] = csv.trim().split("\n")
      const columns = header!.replace(/^# /, "").split(",")
      const [proxy, server, status] = ["pxname", "svname", "status"].map((c) => columns.indexOf(c)) as [number, number, number]
      // "UP 1/2" (one check failed, not yet `fall`) is still in service.
      return rows.map((row) => row.split(",")).filter((f) =>
        f[proxy] === "primary" && f[server] !== "BACKEND" && f[server] !== "FRONTEND" && f[status]!.startsWith("UP")
      ).map((f) => f[server]!)
    }
    const deadline = Date.now() + 10_000
    while (!(yield* Effect.promise(() => upNodes().then((up) => up.length === 1, () => false)))) {
      if (Date.now() > deadline || daemon.child.exitCode !== null) {
        return yield* Effect.die(new Error(`haproxy did not route to a primary:\n${daemon.output()}`))
      }
      yield* Effect.sleep("100 millis")
    }
    return { ...daemon, port, upNodes } satisfies PrimaryProxy
  })
