import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import { readdir, readFile } from "node:fs/promises"
import { fileURLToPath } from "node:url"

/** `migrations/` at the package root, seen from both `src/services` and `dist/services`. */
export const migrationsDirectory = fileURLToPath(new URL("../../migrations/", import.meta.url))

const fileName = /^(\d+)_(\w+)\.sql$/

/** Loads `NNNN_name.sql` files; each runs as one multi-statement script. */
const sqlFiles = (directory: string): Migrator.Loader =>
  Effect.tryPromise({
    try: () => readdir(directory),
    catch: (cause) =>
      new Migrator.MigrationError({ reason: "bad-state", message: `Cannot read ${directory}: ${String(cause)}` })
  }).pipe(
    Effect.map((files) =>
      files.flatMap((file): Array<Migrator.ResolvedMigration> => {
        const match = fileName.exec(file)
        if (match === null) return []
        const load = Effect.promise(() => readFile(`${directory}/${file}`, "utf8")).pipe(
          Effect.map((script) => Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(script)))
        )
        return [[Number(match[1]), match[2]!, load]]
      }).sort(([a], [b]) => a - b)
    )
  )

const runMigrator = Migrator.make({})
const migrationsTable = "schema_migrations"

// Any number from a fixed place, so every process of this project takes the same lock.
const migrationLockKey = 7_362_104_851

/**
 * Applies pending migrations. The Migrator's own check-then-create of its table races when several
 * processes start at once against an empty database, so the whole run holds a transaction-scoped
 * advisory lock: the first process migrates, the others wait and then find nothing to do. The
 * bookkeeping table (the Migrator's own shape) is created here too, because the Migrator probes for
 * it with a statement that fails, and a failed statement would abort the enclosing transaction.
 */
export const migrate = (directory: string = migrationsDirectory) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return yield* Effect.gen(function*() {
      yield* sql`select pg_advisory_xact_lock(${migrationLockKey})`
      yield* sql`create table if not exists ${sql(migrationsTable)} (
        migration_id integer primary key,
        created_at timestamp with time zone not null default now(),
        name text not null
      )`
      return yield* runMigrator({ loader: sqlFiles(directory), table: migrationsTable })
    }).pipe(sql.withTransaction)
  })
