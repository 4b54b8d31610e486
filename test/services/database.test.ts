import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { OrgId } from "../../src/domain/Ids.js"
import { Org } from "../../src/domain/Org.js"
import * as Database from "../../src/services/database/Database.js"
import { Orgs } from "../../src/services/Orgs.js"
import { uuid } from "../support/ids.js"
import { appliedMigrations, everyMigration } from "../support/migrations.js"


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
      expect(reopened.migrations).toEqual(everyMigration)
    }).pipe(Effect.scoped))
})
