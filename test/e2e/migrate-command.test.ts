import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freshServerDatabase, serverUrl } from "../support/TestDatabase.js"
import { expectOneLine, runToEnd } from "./support/RunToEnd.js"
import { freePort, startProcess, stopProcess } from "./support/Processes.js"

/** What `npm run migrate` does, then a service told not to migrate (`MIGRATE=off`) on that database. */
const deployStep = (database: Record<string, string>, service: string) =>
  Effect.gen(function*() {
    const [org, profile, license, workflow] = yield* Effect.promise(() => Promise.all([freePort(), freePort(), freePort(), freePort()]))
    const ports = service === "all"
      ? { ORG_PORT: String(org), PROFILE_PORT: String(profile), LICENSE_PORT: String(license), WORKFLOW_PORT: String(workflow) }
      : { PORT: String(org) }
    const serviceEnv = { ...database, ...ports, MIGRATE: "off" }

    const refused = yield* Effect.promise(() => runToEnd(service, serviceEnv))
    expectOneLine(
      refused,
      `${service}: the database lacks migrations 1 (onboarding_schema), 2 (list_indexes), and MIGRATE=off does not ` +
        `apply them (run \`npm run migrate\` with this ${"DATA_DIR" in database ? "DATA_DIR" : "DATABASE_URL"} first, or unset MIGRATE)`
    )

    const first = yield* Effect.promise(() => runToEnd("migrate", { ...database, LOG_FORMAT: "json" }))
    expect(first.code).toBe(0)
    const messages = first.stdout.trim().split("\n").map((line) => JSON.parse(line).message as string)
    expect(messages).toContain("database: migration 1 (onboarding_schema) applied")
    expect(messages).toContain("database: migration 2 (list_indexes) applied")

    const again = yield* Effect.promise(() => runToEnd("migrate", { ...database, LOG_FORMAT: "json" }))
    expect(again.code).toBe(0)
    expect(again.stdout).toContain("database: schema up to date")

    const running = yield* Effect.promise(() => startProcess(service, serviceEnv, service === "all" ? 4 : 1))
    expect(running.output()).toContain("MIGRATE=off: checked, not migrated")
    expect(yield* Effect.promise(() => stopProcess(running))).toBe(0)
  })

describe("npm run migrate, and services with MIGRATE=off", () => {
  it.live.skipIf(serverUrl === undefined)("on PostgreSQL: refused before the step, applied by it once, served after it", () =>
    Effect.gen(function*() {
      const { url } = yield* freshServerDatabase(serverUrl!)
      yield* deployStep({ DATABASE_URL: url }, "org")
    }).pipe(Effect.scoped), 300_000)

  it.live.skipIf(serverUrl !== undefined)("on the embedded database's directory", () =>
    Effect.gen(function*() {
      const dataDir = yield* Effect.acquireRelease(
        Effect.promise(() => mkdtemp(join(tmpdir(), "onboarding-migrate-"))),
        (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
      )
      yield* deployStep({ DATA_DIR: dataDir }, "all")
    }).pipe(Effect.scoped), 300_000)

  it("--help says what it does and what it reads", async () => {
    const help = await runToEnd("migrate", {}, 180, ["--help"])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain("Usage: node dist/main/migrate.js")
    expect(help.stdout).toContain("DATABASE_URL")
  })
})
