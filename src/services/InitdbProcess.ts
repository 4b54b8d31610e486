import { Data, Effect } from "effect"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"

/** The package root (from `src/services` and `dist/services` alike), where `@electric-sql/pglite` resolves. */
const packageRoot = fileURLToPath(new URL("../../", import.meta.url))

/**
 * The child's whole program. It listens for the IPC channel's 'disconnect' before it loads
 * PGlite: the parent's end of the channel is closed by the kernel however the parent dies (kill -9
 * too), so an orphan stops at its next turn of the event loop instead of writing on for seconds.
 * A parent that died before the listener was set is seen by `process.connected`.
 */
const program = `
process.on("disconnect", () => process.exit(70))
if (!process.connected) process.exit(70)
const { PGlite } = await import("@electric-sql/pglite")
const db = await PGlite.create(process.argv[1])
await db.close()
process.exit(0)
`

export class InitdbFailed extends Data.TaggedError("InitdbFailed")<{
  readonly directory: string
  readonly code: number | null
  readonly signal: string | null
  readonly stderr: string
}> {
  override get message() {
    const how = this.signal === null ? `exited with ${this.code}` : `was killed by ${this.signal}`
    const said = this.stderr.trim().split("\n").slice(-3).join(" / ")
    return `creating the database in ${this.directory} failed: initdb ${how}${said === "" ? "" : `: ${said}`}`
  }
}

/** The last few KiB a child wrote on stderr: enough for its error, never unbounded. */
const stderrKept = 8 * 1024

/**
 * Creates a new, cleanly shut down cluster in `directory` (an empty or missing directory) in a
 * child process. PGlite's initdb takes two more WebAssembly instances (a second PGlite, and initdb
 * itself), and WebAssembly memory is never given back: done in the serving process it left that
 * process at about 600 MiB for good. The child dies with this process (see `program`), and is
 * killed if this effect is interrupted (SIGTERM during the first start).
 */
export const initdbInChild = (directory: string): Effect.Effect<void, InitdbFailed> =>
  Effect.async<void, InitdbFailed>((resume) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", program, directory], {
      cwd: packageRoot,
      stdio: ["ignore", "ignore", "pipe", "ipc"]
    })
    let stderr = ""
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-stderrKept)
    })
    let settled = false
    const settle = (result: Effect.Effect<void, InitdbFailed>) => {
      if (!settled) resume(result)
      settled = true
    }
    const exited = new Promise<void>((done) => {
      child.once("close", () => done())
      child.once("error", () => done())
    })
    child.once("error", (cause) =>
      settle(Effect.fail(new InitdbFailed({ directory, code: null, signal: null, stderr: String(cause) }))))
    child.once("close", (code, signal) =>
      settle(code === 0 ? Effect.void : Effect.fail(new InitdbFailed({ directory, code, signal, stderr }))))
    return Effect.promise(() => {
      child.kill("SIGKILL")
      return exited
    })
  })
