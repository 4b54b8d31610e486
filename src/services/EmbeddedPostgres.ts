import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { Effect } from "effect"
import { mkdir } from "node:fs/promises"

/**
 * PGlite served on a loopback port, so the embedded database is reached through the same
 * `@effect/sql-pg` driver (and the same SQL) as a real PostgreSQL server. PGlite is a single
 * connection; the caller must use a pool of one. Without a `dataDir` the database is in memory.
 */
export const serveEmbeddedPostgres = (dataDir: string | undefined) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      if (dataDir !== undefined) await mkdir(dataDir, { recursive: true })
      const db = await PGlite.create(dataDir)
      const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0 })
      await server.start()
      const port = Number(server.getServerConn().split(":").pop())
      return { db, server, host: "127.0.0.1", port }
    }),
    ({ db, server }) =>
      Effect.promise(async () => {
        await server.stop()
        await db.close()
      })
  )
