import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, Fiber, Layer, Logger, LogLevel, Redacted } from "effect"
import { readdirSync } from "node:fs"
import { copyFile, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import * as Database from "../../src/services/database/Database.js"
import { startupLine } from "../../src/main/StartupFailure.js"
import { migrate, MigrationBlocked, MigrationLockWaits, migrationsDirectory, SchemaBehind, verify } from "../../src/services/database/Migrations.js"
import { appliedMigrations, everyMigration, everyMigrationWith } from "../support/migrations.js"
import { freshServerDatabase, type Isolation, serverUrl, TestDatabase, testDatabaseKind } from "../support/TestDatabase.js"


/** A migrations directory of the test's own: this version's first migration, then `extra` files. */
const migrationsWith = (extra: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const dir = await mkdtemp(join(tmpdir(), "onboarding-migrations-"))
      const first = readdirSync(migrationsDirectory).find((file) => file.startsWith("0001_"))!
      await copyFile(join(migrationsDirectory, first), join(dir, first))
      for (const [file, script] of Object.entries(extra)) await writeFile(join(dir, file), script)
      return dir
    }),
    (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
  )

const connect = (url: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      return client
    }),
    (client) => Effect.promise(() => client.end())
  )

describe(`migrations on ${testDatabaseKind}`, () => {
  // Each case on a database of its own, migrated by this version first.
  it.live("a migration that fails leaves nothing of its run applied, and a later run applies it", () =>
    Effect.gen(function*() {
      const broken = yield* migrationsWith({ "0002_broken.sql": "create table half_done (id int);\nselect * from no_such_table;" })
      const sql = yield* SqlClient.SqlClient
      const known = yield* appliedMigrations
      yield* sql`delete from schema_migrations where migration_id > 1`

      const failed = yield* Effect.exit(migrate(broken))
      expect(Exit.isFailure(failed)).toBe(true)
      expect(yield* appliedMigrations).toEqual([1])
      const halfDone = yield* sql<{ found: string | null }>`select to_regclass('half_done')::text as found`
      expect(halfDone[0]!.found).toBeNull()

      const repaired = yield* migrationsWith({ "0002_repaired.sql": "create table half_done (id int);" })
      expect((yield* migrate(repaired)).map(({ id }) => id)).toEqual([2])
      expect(yield* Effect.exit(verify(repaired))).toEqual(Exit.void)
      expect(known).toEqual(everyMigration)
    }).pipe(Effect.scoped, Effect.provide(TestDatabase)))

  it.live("MIGRATE=off's check names the migrations the database lacks", () =>
    Effect.gen(function*() {
      const later = yield* migrationsWith({ "0002_list_indexes.sql": "select 1;", "0099_later.sql": "select 1;" })
      const exit = yield* Effect.exit(verify(later))
      expect(exit).toEqual(Exit.fail(expect.any(SchemaBehind)))
      const missing = Exit.isFailure(exit) && exit.cause._tag === "Fail" ? (exit.cause.error as SchemaBehind).missing : []
      expect(missing.map(({ id, name }) => `${id}_${name}`)).toEqual(["99_later"])
    }).pipe(Effect.scoped, Effect.provide(TestDatabase)))
})

/** Eight processes' pools, as eight replicas starting together would have, migrating at once. */
const startingTogether = (isolation: Isolation) =>
  Effect.gen(function*() {
    const { url } = yield* freshServerDatabase(serverUrl!, isolation)
    const options = { kind: "postgres", url: Redacted.make(url), poolSize: 2 } as const
    const clients = yield* Effect.all(
      Array.from({ length: 8 }, () => Layer.build(Database.layer(options))),
      { concurrency: "unbounded" }
    )
    for (const context of clients) {
      expect(yield* Effect.provide(appliedMigrations, context)).toEqual(everyMigration)
    }
  }).pipe(Effect.scoped)

describe.skipIf(serverUrl === undefined)("migrations on PostgreSQL, several processes", () => {
  it.live("eight processes starting at once on one empty database apply each migration once", () =>
    startingTogether("read committed"))

  it.live("the same with every transaction serializable (a waiter's 40001 is retried)", () =>
    startingTogether("serializable"))

  it.live("a run waits while another holds the lock row, takes no advisory lock, then has nothing to do", () =>
    Effect.gen(function*() {
      const { url } = yield* freshServerDatabase(serverUrl!)
      const database = Database.layer({ kind: "postgres", url: Redacted.make(url), poolSize: 2 })
      yield* Layer.build(database)
      const holder = yield* connect(url)
      yield* Effect.promise(() => holder.query("begin; update schema_migrations_lock set claimed_by = 'test' where id = 1"))

      const waiting = yield* Effect.fork(Effect.provide(migrate(), database))
      const observer = yield* connect(url)
      // Until the waiter is seen blocked on the row (a lock wait on a transaction id), never on an advisory lock.
      let blocked = false
      while (!blocked) {
        const { rows } = yield* Effect.promise(() =>
          observer.query<{ locktype: string; granted: boolean }>(
            "select locktype, granted from pg_locks where database = (select oid from pg_database where datname = current_database()) or locktype = 'transactionid'"
          )
        )
        expect(rows.filter((row) => row.locktype === "advisory")).toEqual([])
        blocked = rows.some((row) => row.locktype === "transactionid" && !row.granted)
        if (!blocked) yield* Effect.sleep("20 millis")
      }
      expect(yield* Fiber.poll(waiting)).toEqual(expect.objectContaining({ _tag: "None" }))
      yield* Effect.promise(() => holder.query("commit"))
      expect(yield* Fiber.join(waiting)).toEqual([])
    }).pipe(Effect.scoped))
})

/** The warnings `effect` logs, kept; `seen` resolves at the first. */
const warningsKept = Effect.gen(function*() {
  const seen = yield* Deferred.make<void>()
  const lines: Array<string> = []
  const logger = Logger.make(({ logLevel, message }) => {
    if (!LogLevel.greaterThanEqual(logLevel, LogLevel.Warning)) return
    lines.push(Array.isArray(message) ? message.join(" ") : String(message))
    Deferred.unsafeDone(seen, Exit.void)
  })
  return { lines, seen, layer: Logger.replace(Logger.defaultLogger, logger) }
})

/** A new database migrated by this version, and a session of its own idle in a transaction holding a lock on `orgs`. */
const behindAnIdleSession = Effect.gen(function*() {
  const { url } = yield* freshServerDatabase(serverUrl!)
  const database = Database.layer({ kind: "postgres", url: Redacted.make(url), poolSize: 4 })
  const context = yield* Layer.build(database)
  const holder = yield* connect(url)
  const { rows } = yield* Effect.promise(() => holder.query<{ pid: number }>("select pg_backend_pid() as pid"))
  yield* Effect.promise(() => holder.query("begin; select * from orgs for share"))
  const addColumn = yield* everyMigrationWith({ "0099_org_nickname.sql": "alter table orgs add column nickname text;" })
  return { url, context, holder, holderPid: rows[0]!.pid, addColumn }
})

describe.skipIf(serverUrl === undefined)("a migration while the services run, on PostgreSQL", () => {
  it.live("behind a session idle in a transaction it gives way: the table's reads and writes go on, and it applies once the session ends", () =>
    Effect.gen(function*() {
      const { addColumn, context, holder, holderPid, url } = yield* behindAnIdleSession
      const warnings = yield* warningsKept
      const migrating = yield* Effect.fork(
        migrate(addColumn).pipe(
          Effect.provideService(MigrationLockWaits, { lockTimeoutMillis: 200, deadlineMillis: 300_000 }),
          Effect.provide(Layer.merge(Layer.succeedContext(context), warnings.layer))
        )
      )
      yield* Deferred.await(warnings.seen)
      // A write and a read of the locked table while the migration waits for it: before, they
      // queued behind its ALTER for as long as the idle session lived (here: forever, the test
      // ends that session only after they are answered).
      const service = yield* connect(url)
      yield* Effect.promise(() => service.query("insert into orgs (id, name) values (gen_random_uuid(), 'Written during the migration')"))
      const { rows } = yield* Effect.promise(() => service.query<{ n: number }>("select count(*)::int as n from orgs"))
      expect(rows[0]!.n).toBe(1)
      yield* Effect.promise(() => holder.query("commit"))
      expect((yield* Fiber.join(migrating)).map(({ id }) => id)).toEqual([99])
      expect(warnings.lines[0]).toMatch(
        new RegExp(`^database: migration 99 \\(org_nickname\\) waits for a lock held by pid ${holderPid} \\(postgres; idle in transaction for \\d+ s; last statement: "begin; select \\* from orgs for share"\\)`)
      )
    }).pipe(Effect.scoped))

  it.live("past MIGRATION_DEADLINE_MS it fails with one line naming the session, nothing of it applied", () =>
    Effect.gen(function*() {
      const { addColumn, context, holder, holderPid } = yield* behindAnIdleSession
      const failed = yield* migrate(addColumn).pipe(
        Effect.provideService(MigrationLockWaits, { lockTimeoutMillis: 100, deadlineMillis: 300 }),
        Effect.provide(Layer.succeedContext(context)),
        Effect.flip
      )
      expect(failed).toBeInstanceOf(MigrationBlocked)
      expect(startupLine("migrate", Cause.fail(failed))).toMatch(
        new RegExp(`^migrate: migration 99 \\(org_nickname\\) could not take its locks in \\d+ s: they are held by pid ${holderPid} \\(postgres; idle in transaction .*\\(end that session, or set MIGRATION_DEADLINE_MS\\)$`)
      )
      yield* Effect.promise(() => holder.query("commit"))
      expect(yield* Effect.provide(appliedMigrations, context)).toEqual(everyMigration)
    }).pipe(Effect.scoped))
})
