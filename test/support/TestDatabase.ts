import { Effect, Layer, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import pg from "pg"
import * as Database from "../../src/services/Database.js"

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

/**
 * A fresh, empty database for one suite: several test runs (and CI) share one server, so each
 * suite creates its own database and drops it afterwards.
 */
export const freshServerDatabase = (url: string) =>
  Effect.acquireRelease(
    Effect.suspend(() => {
      const name = `onboarding_test_${randomUUID().replaceAll("-", "")}`
      return Effect.as(adminQuery(url, `create database ${name}`), { name, url: withDatabase(url, name) })
    }),
    ({ name }) => adminQuery(url, `drop database if exists ${name} with (force)`)
  )

/** The migrated database the suites run on: in-memory PGlite, or a fresh PostgreSQL database. */
export const TestDatabase = Layer.unwrapScoped(
  serverUrl === undefined
    ? Effect.succeed(Database.layer({ kind: "embedded", dataDir: Database.inMemory }))
    : Effect.map(
      freshServerDatabase(serverUrl),
      ({ url }) => Database.layer({ kind: "postgres", url: Redacted.make(url), poolSize: 10 })
    )
)
