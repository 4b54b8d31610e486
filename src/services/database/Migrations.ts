import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Context, Data, Effect, Either, Schedule } from "effect"
import { readdir, readFile } from "node:fs/promises"
import { hostname } from "node:os"
import { join } from "node:path"
import { packageRoot } from "./PackageRoot.js"
import { sqlState, transaction } from "./Transient.js"

/** `migrations/` at the package root. */
export const migrationsDirectory = join(packageRoot, "migrations") + "/"

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

/** A migration's locks stayed held by other sessions past the deadline: `blockers` says by whom. */
export class MigrationBlocked extends Data.TaggedError("MigrationBlocked")<{
  readonly migration: Migration
  readonly blockers: string
  readonly waitedMillis: number
}> {}

/** What this version's migrations, not the database's connection or rights, stop a start on. */
export type MigrationsProblem = SchemaBehind | DuplicateMigration | MigrationFilesUnreadable | MigrationBlocked

export const isMigrationsProblem = (error: unknown): error is MigrationsProblem =>
  error instanceof SchemaBehind || error instanceof DuplicateMigration || error instanceof MigrationFilesUnreadable ||
  error instanceof MigrationBlocked

/**
 * How long one try of the migrations may wait for a lock (`MIGRATION_LOCK_TIMEOUT_MS`), and for how
 * long they are tried again while other sessions hold what they need (`MIGRATION_DEADLINE_MS`).
 *
 * A statement waiting for a lock is queued in front of every later statement that asks for a
 * conflicting one: an `ALTER TABLE` behind one session idle in a transaction holding a row lock
 * stopped every read and write of that table for as long as that session lived. With a short
 * lock timeout the migrations give their place back, the service's statements go on, and the
 * migrations try again, so the longest any statement waits behind them is about one lock timeout.
 */
export class MigrationLockWaits extends Context.Reference<MigrationLockWaits>()("MigrationLockWaits", {
  defaultValue: () => ({ lockTimeoutMillis: 1_000, deadlineMillis: 600_000 })
}) {}

/** SQLSTATE 55P03: a lock not granted within `lock_timeout`. */
const lockNotAvailable = "55P03"

/**
 * The sessions most likely to hold what the migrations wait for: those of this database in a
 * transaction that holds a table lock, oldest first; in words, for the log and the failure line.
 */
const lockHolders = (sql: SqlClient.SqlClient) =>
  sql<{ pid: number; usename: string | null; application_name: string | null; state: string | null; seconds: number; query: string | null }>`
    select a.pid, a.usename, a.application_name, a.state,
           floor(extract(epoch from now() - a.xact_start))::int as seconds, left(a.query, 80) as query
    from pg_stat_activity a
    where a.pid <> pg_backend_pid() and a.datname = current_database() and a.xact_start is not null
      and exists (select 1 from pg_locks l where l.pid = a.pid and l.granted and l.locktype = 'relation')
    order by a.xact_start limit 3`.withoutTransform.pipe(
    Effect.map((rows) =>
      rows.length === 0
        ? "a session that has since let go"
        : rows.map((row) =>
          `pid ${row.pid} (${[row.usename, row.application_name].filter((each) => each !== null && each !== "").join(", ")}; ` +
          `${row.state ?? "unknown state"} for ${row.seconds} s; last statement: ${JSON.stringify(row.query ?? "")})`
        ).join(", ")
    ),
    Effect.orElseSucceed(() => "sessions this role may not see (pg_stat_activity)")
  )

const fileName = /^(\d+)_(\w+)\.sql$/

/** The migrations this version knows, in order. */
export const migrationFiles = (directory: string = migrationsDirectory) =>
  Effect.tryPromise({
    try: () => readdir(directory),
    catch: (cause) => new MigrationFilesUnreadable({ directory, cause })
  }).pipe(
    Effect.flatMap((files) => {
      const migrations = files.flatMap((file): Array<Migration> => {
        const [, id, name] = fileName.exec(file) ?? []
        return id === undefined || name === undefined
          ? []
          : [{ id: Number(id), name, script: () => readFile(`${directory}/${file}`, "utf8") }]
      }).sort((a, b) => a.id - b.id)
      const repeated = migrations.find((each, i) => i > 0 && migrations[i - 1]?.id === each.id)
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
    const { deadlineMillis, lockTimeoutMillis } = yield* MigrationLockWaits
    const known = yield* migrationFiles(directory)
    yield* prepare(sql)
    const claimant = `${hostname()} pid ${process.pid}`
    let running: Migration | undefined
    const attempt = Effect.gen(function*() {
      yield* sql`update ${sql(lockTable)} set claimed_at = now(), claimed_by = ${claimant} where id = 1`
      const applied = yield* appliedIds(sql)
      const pending = known.filter((migration) => !applied.has(migration.id))
      // Local to this transaction (so it holds behind a pooler too), and only for the scripts: the
      // wait for the lock row above is other migrators', which queues no service statement.
      if (pending.length > 0) yield* sql.unsafe(`set local lock_timeout = ${lockTimeoutMillis}`)
      for (const migration of pending) {
        running = migration
        const script = yield* Effect.promise(migration.script)
        yield* sql.unsafe(script)
        yield* sql`insert into ${sql(migrationsTable)} (migration_id, name) values (${migration.id}, ${migration.name})`
      }
      return pending
    }).pipe(transaction(sql), retryRaces)
    const started = Date.now()
    for (let pause = 100;; pause = Math.min(pause * 2, 2_000)) {
      const tried = yield* Effect.either(attempt)
      if (Either.isRight(tried)) return tried.right
      if (sqlState(tried.left) !== lockNotAvailable || running === undefined) return yield* Effect.fail(tried.left)
      const blockers = yield* lockHolders(sql)
      const waitedMillis = Date.now() - started
      if (waitedMillis >= deadlineMillis) return yield* new MigrationBlocked({ migration: running, blockers, waitedMillis })
      yield* Effect.logWarning(
        `database: migration ${running.id} (${running.name}) waits for a lock held by ${blockers}; ` +
          `it gave way to the service's statements and tries again (MIGRATION_LOCK_TIMEOUT_MS=${lockTimeoutMillis}, ` +
          `for up to MIGRATION_DEADLINE_MS=${deadlineMillis})`
      )
      yield* Effect.sleep(pause)
    }
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
