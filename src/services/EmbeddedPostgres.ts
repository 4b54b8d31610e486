import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { Data, Effect } from "effect"
import { lockDataDir } from "./DataDirLock.js"

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
          const db = await PGlite.create(dataDir)
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
