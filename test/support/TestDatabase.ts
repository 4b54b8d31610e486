import { Effect, Layer, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import pg from "pg"
import * as Database from "../../src/services/database/Database.js"

/** Set to run the database suites against a real PostgreSQL server instead of in-memory PGlite. */
export const serverUrl = process.env["TEST_DATABASE_URL"] || undefined

export const testDatabaseKind = serverUrl === undefined ? "embedded PGlite" : "PostgreSQL"

const adminQuery = (url: string, statement: string) =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      await client.query(statement)
    } finally {
      await client.end()
    }
  })

const withDatabase = (url: string, database: string): string => {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  return parsed.toString()
}

export type Isolation = "read committed" | "serializable"

/**
 * A fresh, empty database for one suite: several test runs (and CI) share one server, so each
 * suite creates its own database and drops it afterwards. `serializable` makes that the default
 * isolation of every transaction in it, as CockroachDB has it.
 */
export const freshServerDatabase = (url: string, isolation: Isolation = "read committed") =>
  Effect.acquireRelease(
    Effect.suspend(() => {
      const name = `onboarding_test_${randomUUID().replaceAll("-", "")}`
      return adminQuery(url, `create database ${name}`).pipe(
        Effect.zipRight(
          isolation === "serializable"
            ? adminQuery(url, `alter database ${name} set default_transaction_isolation = 'serializable'`)
            : Effect.void
        ),
        Effect.as({ name, url: withDatabase(url, name) })
      )
    }),
    ({ name }) => adminQuery(url, `drop database if exists ${name} with (force)`)
  )

const serverDatabase = (url: string, isolation: Isolation, options: { readonly maxWaiting?: number } = {}) =>
  Layer.unwrapScoped(
    Effect.map(
      freshServerDatabase(url, isolation),
      ({ url }) => Database.layer({ kind: "postgres", url: Redacted.make(url), poolSize: 10, ...options })
    )
  )

/** The migrated database the suites run on (in-memory PGlite, or a fresh PostgreSQL database), with `options`. */
export const testDatabaseWith = (options: { readonly maxWaiting?: number }) =>
  serverUrl === undefined
    ? Database.layer({ kind: "embedded", dataDir: Database.inMemory, ...options })
    : serverDatabase(serverUrl, "read committed", options)

/** The migrated database the suites run on: in-memory PGlite, or a fresh PostgreSQL database. */
export const TestDatabase = testDatabaseWith({})

/**
 * For the concurrency and idempotency suites: the test database, and on PostgreSQL also one whose
 * transactions are all serializable (what distributed PostgreSQL-compatible engines run), where
 * concurrent transactions fail with 40001 and must be retried.
 */
export const testDatabases: ReadonlyArray<{ readonly kind: string; readonly layer: typeof TestDatabase }> =
  serverUrl === undefined
    ? [{ kind: testDatabaseKind, layer: TestDatabase }]
    : [
      { kind: testDatabaseKind, layer: TestDatabase },
      { kind: "PostgreSQL, serializable", layer: serverDatabase(serverUrl, "serializable") }
    ]
