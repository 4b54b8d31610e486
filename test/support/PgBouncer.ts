import { Effect } from "effect"
import { spawn } from "node:child_process"
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { freePort } from "../e2e/support/Processes.js"
import { type Daemon, spawnDaemon } from "./Daemon.js"

export interface PgBouncer extends Daemon {
  /** The same database as the one given, reached through PgBouncer. */
  readonly url: string
}

/**
 * PgBouncer in transaction pooling mode in front of one database (`databaseUrl`), on a free port
 * with its own configuration in a temporary directory: Debian's package may already run a system
 * PgBouncer on 6432, which this one never touches. Trust authentication, loopback only: a test
 * fixture, not a deployment. Stopped (and its directory removed) when the scope closes.
 */
export const startPgBouncer = (binary: string, databaseUrl: string, options: { readonly poolSize: number }) =>
  Effect.gen(function*() {
    const target = new URL(databaseUrl)
    const database = target.pathname.slice(1)
    const user = decodeURIComponent(target.username) || "postgres"
    const port = yield* Effect.promise(freePort)
    const directory = mkdtempSync(join(tmpdir(), "onboarding-pgbouncer-"))
    yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(directory, { recursive: true, force: true })))
    const config = join(directory, "pgbouncer.ini")
    writeFileSync(join(directory, "userlist.txt"), `"${user}" ""\n`)
    writeFileSync(
      config,
      [
        "[databases]",
        `${database} = host=${target.hostname} port=${target.port || "5432"} dbname=${database} user=${user}`,
        "[pgbouncer]",
        "listen_addr = 127.0.0.1",
        `listen_port = ${port}`,
        // No Unix socket: the default directory (/var/run/postgresql) is the system PgBouncer's.
        "unix_socket_dir =",
        "auth_type = trust",
        `auth_file = ${join(directory, "userlist.txt")}`,
        "pool_mode = transaction",
        `default_pool_size = ${options.poolSize}`,
        "max_client_conn = 1000",
        // Sent by some clients at start-up; a transaction pool cannot keep per-session settings.
        "ignore_startup_parameters = extra_float_digits,options",
        "admin_users =",
        ""
      ].join("\n")
    )
    // PgBouncer refuses to run as root (CI runs as root): it then switches to an unprivileged user,
    // which must be able to read its configuration.
    const asRoot = process.getuid?.() === 0
    if (asRoot) chmodSync(directory, 0o755)
    const args = [...(asRoot ? ["-u", "nobody"] : []), config]
    const daemon = yield* spawnDaemon("pgbouncer", () => spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] }))
    const url = new URL(databaseUrl)
    url.host = `127.0.0.1:${port}`
    yield* Effect.promise(() => waitUntilAnswers(url.toString(), daemon))
    return { ...daemon, url: url.toString() } satisfies PgBouncer
  })

/** Until a query through it succeeds (PgBouncer listens a moment after it starts). */
const waitUntilAnswers = async (url: string, daemon: Daemon) => {
  const deadline = Date.now() + 10_000
  for (;;) {
    const client = new pg.Client({ connectionString: url })
    try {
      await client.connect()
      await client.query("select 1")
      return
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`PgBouncer did not answer: ${String(error)}\n${daemon.output()}`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    } finally {
      await client.end().catch(() => undefined)
    }
  }
}
