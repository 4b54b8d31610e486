import { PGlite } from "@electric-sql/pglite"
import { Data, Effect } from "effect"
import { lockDataDir } from "./DataDirLock.js"
import { readyCluster } from "./EmbeddedCluster.js"
import { templateBlob, templateFile } from "./EmbeddedTemplate.js"

/**
 * PostgreSQL's defaults, less what one embedded connection needs: the shared buffers are
 * WebAssembly memory of this process, resident and never given back, and PostgreSQL's 128 MB is
 * sized for many connections; 16 MB serves one (the data directory's files are still cached by
 * the operating system). Durability is unchanged: every commit still waits for its WAL to be
 * written.
 */
const startParams = [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"]

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
 * PGlite, opened for the process's database: reached through the same `@effect/sql-pg` driver
 * (and the same SQL) as a real PostgreSQL server, over connections in this process
 * (`EmbeddedConnection.ts`). PGlite is a single session; the caller must use a pool of one.
 * Without a `dataDir` the database is in memory. The directory is locked first (PGlite takes no
 * lock) and released after the database closes; a new directory's database is created in a child
 * process (`EmbeddedCluster.ts`).
 */
export const openEmbeddedDatabase = (dataDir: string | undefined) =>
  Effect.gen(function*() {
    if (dataDir !== undefined) {
      yield* lockDataDir(dataDir)
      yield* readyCluster(dataDir).pipe(Effect.mapError((cause) => new EmbeddedDatabaseError({ dataDir, cause })))
    }
    return yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => {
          // In memory, the database starts from the build's template (EmbeddedTemplate.ts); a
          // directory's was made from it already, by readyCluster.
          const template = dataDir === undefined ? templateFile() : undefined
          return PGlite.create(dataDir, {
            startParams,
            ...(template === undefined ? {} : { loadDataDir: templateBlob(template) })
          })
        },
        catch: (cause) => new EmbeddedDatabaseError({ dataDir, cause })
      }),
      (db) => Effect.promise(() => db.close())
    )
  })
