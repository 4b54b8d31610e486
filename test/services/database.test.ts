import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { readdirSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { OrgId } from "../../src/domain/Ids.js"
import { Org } from "../../src/domain/Org.js"
import * as Database from "../../src/services/Database.js"
import { migrationsDirectory } from "../../src/services/Migrations.js"
import { Orgs } from "../../src/services/Orgs.js"
import { uuid } from "../support/ids.js"
import { freshServerDatabase, serverUrl } from "../support/TestDatabase.js"

const appliedMigrations = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql<{ migration_id: number }>`select migration_id from schema_migrations order by migration_id`
)

/** Every migration in `migrations/`, by number: what a started database has applied, each once. */
const everyMigration = readdirSync(migrationsDirectory)
  .flatMap((file) => /^(\d+)_\w+\.sql$/.exec(file)?.[1] ?? [])
  .map(Number)
  .sort((a, b) => a - b)

const temporaryDirectory = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "onboarding-data-"))),
  (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
)

describe("database description in the logs", () => {
  it("masks the password of DATABASE_URL", () => {
    const described = Database.describe({
      kind: "postgres",
      url: Redacted.make("postgres://app:s3cret@db.internal:5432/onboarding"),
      poolSize: 10
    })
    expect(described).toBe("PostgreSQL at postgres://app:***@db.internal:5432/onboarding (pool 10)")
    expect(described).not.toContain("s3cret")
  })

  it("says where the embedded database keeps its data", () => {
    expect(Database.describe({ kind: "embedded", dataDir: "./.data" })).toBe("embedded PGlite in ./.data")
    expect(Database.describe({ kind: "embedded", dataDir: "memory://" })).toBe("embedded PGlite (in memory)")
  })
})

describe("database start-up", () => {
  it.live.skipIf(serverUrl === undefined)(
    "four processes starting at once against one empty PostgreSQL database apply the schema once",
    () =>
      Effect.gen(function*() {
        const { url } = yield* freshServerDatabase(serverUrl!)
        const options = { kind: "postgres", url: Redacted.make(url), poolSize: 2 } as const
        // Four separate pools, as four processes would have, migrating concurrently.
        const clients = yield* Effect.all(
          Array.from({ length: 4 }, () => Layer.build(Database.layer(options))),
          { concurrency: "unbounded" }
        )
        for (const context of clients) {
          const applied = yield* Effect.provide(appliedMigrations, context)
          expect(applied.map((row) => row.migration_id)).toEqual(everyMigration)
        }
      }).pipe(Effect.scoped)
  )

  it.live("embedded data survives closing and re-opening the same data directory", () =>
    Effect.gen(function*() {
      const dataDir = yield* temporaryDirectory
      const database = Database.layer({ kind: "embedded", dataDir })
      const org = new Org({ id: OrgId.make(uuid()), name: "Durable Ltd" })

      yield* Effect.flatMap(Orgs, (orgs) => orgs.create(org)).pipe(
        Effect.provide(Orgs.Default.pipe(Layer.provide(database)))
      )
      const reopened = yield* Effect.gen(function*() {
        return { org: yield* (yield* Orgs).get(org.id), migrations: yield* appliedMigrations }
      }).pipe(Effect.provide(Orgs.Default.pipe(Layer.provideMerge(database))))

      expect(reopened.org).toEqual(org)
      expect(reopened.migrations.map((row) => row.migration_id)).toEqual(everyMigration)
    }).pipe(Effect.scoped))
})
