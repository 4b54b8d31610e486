import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { Effect } from "effect"
import { openEmbeddedDatabase } from "../../src/services/embedded/EmbeddedPostgres.js"

/**
 * The embedded database as a start opens it, served on a loopback port for as long as the scope
 * lives: a test's look at stored data with its own driver (the processes themselves open no port).
 */
export const serveEmbeddedPostgres = (dataDir: string | undefined) =>
  Effect.gen(function*() {
    const db = yield* openEmbeddedDatabase(dataDir)
    const server = yield* Effect.acquireRelease(
      Effect.promise(async () => {
        const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0 })
        await server.start()
        return server
      }),
      (server) => Effect.promise(() => server.stop())
    )
    return { db, host: "127.0.0.1", port: Number(server.getServerConn().split(":").pop()) }
  })
