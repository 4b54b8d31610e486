import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { readdirSync } from "node:fs"
import { migrationsDirectory } from "../../src/services/Migrations.js"

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
