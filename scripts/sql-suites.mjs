#!/usr/bin/env node
// Prints, one a line, the test files whose outcome can depend on TEST_DATABASE_URL: what CI runs a
// second time, on PostgreSQL (`npm test -- $(node scripts/sql-suites.mjs)`).
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"

/*
 * Which test files mean something on PostgreSQL: those that reach the test database's choice,
 * `test/support/TestDatabase.ts` (where the variable is read), through their imports, or read it
 * themselves. Every other suite (the in-memory layers, processes on the embedded database, pure
 * code) runs the same whichever engine is set, so a second run would repeat it. Derived from the
 * imports, not listed: a suite that starts to use the database is run on both without a line here.
 */

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const chooser = join(root, "test/support/TestDatabase.ts")
const readsTheVariable = /env(?:\.TEST_DATABASE_URL|\[["']TEST_DATABASE_URL["']\])/

const localImports = (file) =>
  [...readFileSync(file, "utf8").matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)]
    .map((match) => resolve(dirname(file), match[1].replace(/\.js$/, ".ts")))
    .filter((path) => path.startsWith(join(root, "test")) && existsSync(path))

const testFiles = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? testFiles(join(dir, entry.name)) : entry.name.endsWith(".test.ts") ? [join(dir, entry.name)] : []
  )

/** The test files (paths from the repository's root) whose outcome can depend on TEST_DATABASE_URL. */
export const sqlSuites = () => {
  const reaches = new Map()
  const visit = (file) => {
    const known = reaches.get(file)
    if (known !== undefined) return known
    reaches.set(file, false) // an import cycle reaches nothing new
    const result = file === chooser || readsTheVariable.test(readFileSync(file, "utf8")) || localImports(file).some(visit)
    reaches.set(file, result)
    return result
  }
  return testFiles(join(root, "test")).filter(visit).map((file) => relative(root, file)).sort()
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const slow = process.argv.includes("--slow")
  console.log(sqlSuites().filter((file) => file.endsWith(".slow.test.ts") === slow).join("\n"))
}
