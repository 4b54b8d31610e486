import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const src = fileURLToPath(new URL("../src/", import.meta.url))
const files = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : []
  )

// These packages' entry points evaluate every module they hold (@effect/platform's bundles two
// API-documentation web pages of about 10 MB): importing them whole cost each service process
// about 30 MB of its idle memory. Source imports the modules it uses, by path.
// (`import { type X }` counts: with verbatimModuleSyntax it still loads the module.)
const barrels = /^import (?!type )(?:\{[^}]*\}|[\w*]+(?: as \w+)?) from "@effect\/(platform|platform-node|sql|sql-pg|rpc|experimental)"$/m

describe("imports", () => {
  it("no source file imports an Effect package through its entry point", () => {
    const offenders = files(src).filter((file) => barrels.test(readFileSync(file, "utf8")))
    expect(offenders).toEqual([])
  })
})
