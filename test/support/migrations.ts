import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { readdirSync } from "node:fs"
import { copyFile, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { migrationsDirectory } from "../../src/services/database/Migrations.js"

/** The migration numbers the database has recorded as applied, in order. */
export const appliedMigrations = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql<{ migration_id: number }>`select migration_id from schema_migrations order by migration_id`
).pipe(Effect.map((rows) => rows.map((row) => row.migration_id)))

/** Every migration in `migrations/`, by number: what a started database has applied, each once. */
export const everyMigration = readdirSync(migrationsDirectory)
  .flatMap((file) => /^(\d+)_\w+\.sql$/.exec(file)?.[1] ?? [])
  .map(Number)
  .sort((a, b) => a - b)

/** This version's migrations and then `extra` files (name: script), in a directory of the test's own for the scope. */
export const everyMigrationWith = (extra: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const dir = await mkdtemp(join(tmpdir(), "onboarding-migrations-"))
      for (const file of readdirSync(migrationsDirectory)) await copyFile(join(migrationsDirectory, file), join(dir, file))
      for (const [file, script] of Object.entries(extra)) await writeFile(join(dir, file), script)
      return dir
    }),
    (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
  )
