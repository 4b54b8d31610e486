import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Data, Effect, Schedule } from "effect"
import { readdir, readFile } from "node:fs/promises"
import { hostname } from "node:os"
import { fileURLToPath } from "node:url"
import { sqlState, transaction } from "./Transient.js"

/** `migrations/` at the package root, seen from both `src/services` and `dist/services`. */
export const migrationsDirectory = fileURLToPath(new URL("../../migrations/", import.meta.url))

/** A migration file, `NNNN_name.sql`: its number, its name, and the script that applies it. */
export interface Migration {
  readonly id: number
  readonly name: string
  readonly script: () => Promise<string>
}

/** The migrations directory cannot be read (a broken install). */
export class MigrationFilesUnreadable extends Data.TaggedError("MigrationFilesUnreadable")<{
  readonly directory: string
  readonly cause: unknown
}> {}

/** Two files with one number: which of them counts would depend on the order of a directory listing. */
export class DuplicateMigration extends Data.TaggedError("DuplicateMigration")<{ readonly id: number }> {}

/** `MIGRATE=off`, and the database lacks migrations this version needs. */
export class SchemaBehind extends Data.TaggedError("SchemaBehind")<{ readonly missing: ReadonlyArray<Migration> }> {}

/** What this version's migrations, not the database's connection or rights, stop a start on. */
export type MigrationsProblem = SchemaBehind | DuplicateMigration | MigrationFilesUnreadable

export const isMigrationsProblem = (error: unknown): error is MigrationsProblem =>
  error instanceof SchemaBehind || error instanceof DuplicateMigration || error instanceof MigrationFilesUnreadable

const fileName = /^(\d+)_(\w+)\.sql$/

/** The migrations this version knows, in order. */
export const migrationFiles = (directory: string = migrationsDirectory) =>
  Effect.tryPromise({
    try: () => readdir(directory),
    catch: (cause) => new MigrationFilesUnreadable({ directory, cause })
  }).pipe(
    Effect.flatMap((files) => {
      const migrations = files.flatMap((file): Array<Migration> => {
        const match = fileName.exec(file)
        return match === null
          ? []
          : [{ id: Number(match[1]), name: match[2]!, script: () => readFile(`${directory}/${file}`, "utf8") }]
      }).sort((a, b) => a.id - b.id)
      const repeated = migrations.find((each, i) => i > 0 && migrations[i - 1]!.id === each.id)
      return repeated === undefined ? Effect.succeed(migrations) : Effect.fail(new DuplicateMigration({ id: repeated.id }))
    })
  )

/** The @effect/sql Migrator's table and shape, so that databases it migrated carry on from where they are. */
const migrationsTable = "schema_migrations"
const lockTable = "schema_migrations_lock"

// Two processes creating one table at the same moment: one of them fails on the catalogue's
// unique index (23505), finds the table created (42P07), or, when the other commits between its
// look for the table and its creation of the table's row type, finds that type (42710, "type
// already exists": seen once in eight processes starting together); serializable engines abort
// one (40001), and lock waits can deadlock (40P01). Each time, the whole transaction is run again.
const retriedStates = new Set(["23505", "42P07", "42710", "40001", "40P01"])
const retryRaces = <A, R>(self: Effect.Effect<A, SqlError, R>) =>
  Effect.retry(
    Effect.tapError(self, (error) =>
      retriedStates.has(sqlState(error))
        ? Effect.logDebug(`database: migration transaction run again after SQLSTATE ${sqlState(error)}`)
        : Effect.void),
    {
      while: (error) => retriedStates.has(sqlState(error)),
      schedule: Schedule.exponential("20 millis", 2).pipe(Schedule.jittered, Schedule.intersect(Schedule.recurs(8)))
    }
  )

const appliedIds = (sql: SqlClient.SqlClient) =>
  Effect.map(
    sql<{ readonly migration_id: number }>`select migration_id from ${sql(migrationsTable)}`.withoutTransform,
    (rows) => new Set(rows.map((row) => Number(row.migration_id)))
  )

/** The bookkeeping tables and the lock's one row, made once; every later run finds them. */
const prepare = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    yield* sql`create table if not exists ${sql(migrationsTable)} (
      migration_id integer primary key,
      created_at timestamp with time zone not null default now(),
      name text not null
    )`
    yield* sql`create table if not exists ${sql(lockTable)} (
      id integer primary key check (id = 1),
      claimed_at timestamp with time zone,
      claimed_by text
    )`
    yield* sql`insert into ${sql(lockTable)} (id) values (1) on conflict (id) do nothing`
  }).pipe(transaction(sql), retryRaces)

/**
 * Applies the migrations the database lacks, in order, and answers with them.
 *
 * Every process of a deployment may run this at once (four per-service processes starting
 * together on an empty database, replicas, a `migrate` step), through a pooler in transaction
 * mode, on engines where advisory locks are not dependable. So the lock is a row: the transaction
 * that applies the migrations first updates the one row of `schema_migrations_lock`, which holds
 * every other process at that statement until it commits. A waiter then reads what was applied:
 * under READ COMMITTED its next statement sees the commit; under SERIALIZABLE (or REPEATABLE READ)
 * its update of a row changed since its snapshot fails with 40001, and the whole transaction runs
 * again on a fresh one. An update, not `SELECT ... FOR UPDATE`, for that reason: a row only
 * locked would let a serializable waiter go on with its old snapshot and apply everything again.
 *
 * Not the @effect/sql Migrator, which takes `LOCK TABLE ... ACCESS EXCLUSIVE` (not implemented by
 * distributed PostgreSQL-compatible engines) and, when its bookkeeping insert collides with
 * another process's, reports "nothing to do" before that other process has committed.
 */
export const migrate = (directory: string = migrationsDirectory) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const known = yield* migrationFiles(directory)
    yield* prepare(sql)
    const claimant = `${hostname()} pid ${process.pid}`
    return yield* Effect.gen(function*() {
      yield* sql`update ${sql(lockTable)} set claimed_at = now(), claimed_by = ${claimant} where id = 1`
      const applied = yield* appliedIds(sql)
      const pending = known.filter((migration) => !applied.has(migration.id))
      for (const migration of pending) {
        const script = yield* Effect.promise(migration.script)
        yield* sql.unsafe(script)
        yield* sql`insert into ${sql(migrationsTable)} (migration_id, name) values (${migration.id}, ${migration.name})`
      }
      return pending
    }).pipe(transaction(sql), retryRaces)
  })

/**
 * For `MIGRATE=off`: fails with the migrations this version needs that the database lacks. A
 * database without the bookkeeping table lacks them all.
 */
export const verify = (directory: string = migrationsDirectory) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const known = yield* migrationFiles(directory)
    const applied = yield* appliedIds(sql).pipe(
      Effect.catchIf((error) => sqlState(error) === "42P01", () => Effect.succeed(new Set<number>()))
    )
    const missing = known.filter((migration) => !applied.has(migration.id))
    if (missing.length > 0) return yield* new SchemaBehind({ missing })
  })
