import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { Data, Effect } from "effect"
import { execFile } from "node:child_process"
import { existsSync } from "node:fs"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { lockDataDir } from "./DataDirLock.js"

/**
 * PostgreSQL's defaults, less what one embedded connection needs: 128 MB of shared buffers made
 * the process's resident memory about 310 MiB; 16 MB, about 165 MiB (the data directory's files
 * are still cached by the operating system). Durability is unchanged: every commit still waits
 * for its WAL to be written.
 */
const startParams = [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"]

/** The package root (from `src/services` and `dist/services` alike), where `@electric-sql/pglite` resolves. */
const packageRoot = fileURLToPath(new URL("../../", import.meta.url))

const initdbScript =
  `import { PGlite } from "@electric-sql/pglite"; const db = await PGlite.create(process.argv[1]); await db.close()`

/**
 * A new data directory is initialised in a child process, then opened here. PGlite's initdb takes
 * two more WebAssembly instances (a second PGlite, and initdb itself), and WebAssembly memory is
 * never given back: done in the serving process it left that process at about 600 MiB for good.
 */
const initialised = async (dataDir: string | undefined) => {
  if (dataDir === undefined || existsSync(join(dataDir, "PG_VERSION"))) return
  await promisify(execFile)(process.execPath, ["--input-type=module", "-e", initdbScript, resolve(dataDir)], {
    cwd: packageRoot
  })
}

export class EmbeddedDatabaseError extends Data.TaggedError("EmbeddedDatabaseError")<{
  readonly dataDir: string | undefined
  readonly cause: unknown
}> {
  override get message() {
    const reason = this.cause instanceof Error ? this.cause.message : String(this.cause)
    return `the embedded database ${this.dataDir === undefined ? "(in memory)" : `in ${this.dataDir}`} did not open: ${reason}`
  }
}

/**
 * PGlite served on a loopback port, so the embedded database is reached through the same
 * `@effect/sql-pg` driver (and the same SQL) as a real PostgreSQL server. PGlite is a single
 * connection; the caller must use a pool of one. Without a `dataDir` the database is in memory.
 * The directory is locked first (PGlite takes no lock) and released after the database closes.
 */
export const serveEmbeddedPostgres = (dataDir: string | undefined) =>
  Effect.gen(function*() {
    if (dataDir !== undefined) yield* lockDataDir(dataDir)
    return yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          await initialised(dataDir)
          const db = await PGlite.create(dataDir, { startParams })
          const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0 })
          await server.start()
          const port = Number(server.getServerConn().split(":").pop())
          return { db, server, host: "127.0.0.1", port }
        },
        catch: (cause) => new EmbeddedDatabaseError({ dataDir, cause })
      }),
      ({ db, server }) =>
        Effect.promise(async () => {
          await server.stop()
          await db.close()
        })
    )
  })
