import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
// @ts-expect-error a plain script, without declarations
import { sqlSuites } from "../scripts/sql-suites.mjs"

/**
 * CI runs the suites whose outcome can depend on TEST_DATABASE_URL a second time, on PostgreSQL
 * (scripts/sql-suites.mjs derives them from the imports). A suite left out would never run there.
 */

const suites: ReadonlyArray<string> = sqlSuites()
const testFiles = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? testFiles(join(dir, entry.name)) : entry.name.endsWith(".test.ts") ? [join(dir, entry.name)] : []
  )
const naming = (pattern: RegExp) => testFiles("test").filter((file) => pattern.test(readFileSync(file, "utf8")))

describe("the suites run on PostgreSQL too", () => {
  it("hold every suite that names the test database, the SQL services or the deployment users run", () => {
    const named = naming(/\b(TestDatabase|testDatabases?|testDatabaseWith|SqlServices|sqlServicesOver|ServicesLive|serverUrl)\b/)
      .filter((file) => file !== "test/sql-suites.test.ts")
    expect(named.length).toBeGreaterThan(20)
    expect(named.filter((file) => !suites.includes(file))).toEqual([])
  })

  it("leave out the suites on the in-memory layers and the pure ones, which would only repeat", () => {
    expect(suites.filter((file) => /^test\/(transports|domain|main)\//.test(file))).toEqual([])
    expect(suites).not.toContain("test/sql-suites.test.ts")
  })
})
