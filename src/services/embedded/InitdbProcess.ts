import { Data, Effect } from "effect"
import { spawn } from "node:child_process"
import { readFileSync, rmSync, writeFileSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { packageRoot } from "../database/PackageRoot.js"
import { type ClusterSource, clusterSource } from "./EmbeddedTemplate.js"


/**
 * The initdb itself, in a worker thread of the child (CommonJS: the worker runs without the child's
 * `--input-type=module`): PGlite's WebAssembly initdb holds its thread
 * for seconds at a time, and the child's main thread must stay free to see its parent go.
 */
const initdbWorker = `
const { workerData } = require("node:worker_threads")
const { readFileSync } = require("node:fs")
import("@electric-sql/pglite").then(async ({ PGlite }) => {
  const { directory, template } = workerData
  const db = await PGlite.create(directory, template === undefined ? {} : {
    loadDataDir: new Blob([readFileSync(template)], { type: "application/x-gzip" })
  })
  await db.close()
})
`

/**
 * The child's whole program. It listens for the IPC channel's 'disconnect' before anything else:
 * the parent's end of the channel is closed by the kernel however the parent dies (kill -9 too),
 * and the main thread, idle while the worker runs initdb or between two files of a copy, exits at
 * once, the worker with it. A parent that died before the listener was set is seen by
 * `process.connected`. A copy of the build's closed cluster (the usual case) writes `PG_VERSION`
 * last, as initdb does not: a copy cut short never looks like a database.
 */
const program = `
import { Worker } from "node:worker_threads"
import { copyFile, mkdir, readdir } from "node:fs/promises"
import { join } from "node:path"
process.on("disconnect", () => process.exit(70))
if (!process.connected) process.exit(70)
const [directory, kind, source] = process.argv.slice(1)
const fail = (error) => { console.error(error?.stack ?? String(error)); process.exit(1) }
const copyTree = async (from, to) => {
  await mkdir(to, { recursive: true })
  const entries = (await readdir(from, { withFileTypes: true })).sort((a, b) => (a.name === "PG_VERSION") - (b.name === "PG_VERSION"))
  for (const entry of entries) {
    const [a, b] = [join(from, entry.name), join(to, entry.name)]
    await (entry.isDirectory() ? copyTree(a, b) : copyFile(a, b))
  }
}
if (kind === "cluster") {
  // The file system's own message says it all ("EACCES: permission denied, open '…'"); a stack
  // would push it out of the one line a failed start prints.
  copyTree(source, directory).then(() => process.exit(0), (error) => { console.error(error?.message ?? String(error)); process.exit(1) })
} else {
  const initdb = new Worker(${JSON.stringify(initdbWorker)}, {
    eval: true, execArgv: [], workerData: { directory, template: kind === "dump" ? source : undefined }
  })
  initdb.once("error", fail)
  initdb.once("exit", (code) => process.exit(code))
}
`

/**
 * Where a child's pid is kept while it runs (`<directory>.pid`), so that a start that finds it
 * can end the child of one that was killed (EmbeddedCluster.ts): belt and braces for a child
 * whose main thread could not see its parent go.
 */
export const pidFileOf = (directory: string) => `${directory}.pid`

/**
 * Whether `pid` is the initdb child that was making `directory`, from its command line where the
 * system shows it (/proc); elsewhere nothing says so, and no process is taken for it.
 */
const isInitdbOf = (pid: number, directory: string) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes(directory)
  } catch {
    return false
  }
}

/**
 * Ends the initdb child recorded in `pidFile` if it is still at work on `directory`; answers with
 * its pid when there was one. A start holding the data directory's lock calls this before it
 * touches the directory: the killed start that spawned the child holds nothing any more.
 */
export const endOrphanInitdb = (pidFile: string, directory: string): Effect.Effect<number | undefined> =>
  Effect.gen(function*() {
    const pid = Number(yield* Effect.promise(() => readFile(pidFile, "utf8").catch(() => "")))
    if (!Number.isSafeInteger(pid) || pid <= 0 || !isInitdbOf(pid, directory)) return undefined
    // SIGKILL cannot be refused; a dead child still shown (a zombie) has an empty command line.
    for (let tries = 0; tries < 500 && isInitdbOf(pid, directory); tries++) {
      yield* Effect.sync(() => {
        try {
          process.kill(pid, "SIGKILL")
        } catch {
          // gone between the look and the kill
        }
      })
      yield* Effect.sleep(10)
    }
    return pid
  })

export class InitdbFailed extends Data.TaggedError("InitdbFailed")<{
  readonly directory: string
  readonly code: number | null
  readonly signal: string | null
  readonly stderr: string
}> {
  override get message() {
    const how = this.signal === null ? `exited with ${this.code}` : `was killed by ${this.signal}`
    const said = this.stderr.trim().split("\n").slice(-3).join(" / ")
    return `creating the database in ${this.directory} failed: the child process making it ${how}${said === "" ? "" : `: ${said}`}`
  }
}

/** The last few KiB a child wrote on stderr: enough for its error, never unbounded. */
const stderrKept = 8 * 1024

/**
 * Creates a new, cleanly shut down cluster in `directory` (an empty or missing directory) in a
 * child process: a copy of the build's closed cluster when there is one (`EmbeddedTemplate.ts`),
 * else loaded from its dump, else made by initdb. The last two take WebAssembly instances beside
 * the serving one (initdb two: a second PGlite, and initdb itself), and WebAssembly memory is never
 * given back: initdb done in the serving process would leave it holding their memory for good.
 * The copy is done by the same child, so that a first start has one way to make its cluster,
 * killed and cleaned up the same way whatever it was made from (a child's start is paid on a new
 * data directory only). The child dies with this process (see `program`), and is killed if this
 * effect is interrupted (SIGTERM during the first start).
 */
export const initdbInChild = (
  directory: string,
  source: ClusterSource = clusterSource()
): Effect.Effect<void, InitdbFailed> =>
  Effect.async<void, InitdbFailed>((resume) => {
    const args = ["--input-type=module", "-e", program, directory, source.kind, ...(source.kind === "initdb" ? [] : [source.path])]
    const child = spawn(process.execPath, args, {
      cwd: packageRoot,
      stdio: ["ignore", "ignore", "pipe", "ipc"]
    })
    const pidFile = pidFileOf(directory)
    if (child.pid !== undefined) writeFileSync(pidFile, String(child.pid))
    let stderr = ""
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
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
    }).then(() => rmSync(pidFile, { force: true }))
    child.once("error", (cause) =>
      settle(Effect.fail(new InitdbFailed({ directory, code: null, signal: null, stderr: String(cause) }))))
    child.once("close", (code, signal) =>
      settle(code === 0 ? Effect.void : Effect.fail(new InitdbFailed({ directory, code, signal, stderr }))))
    return Effect.promise(() => {
      child.kill("SIGKILL")
      return exited
    })
  })
