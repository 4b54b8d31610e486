import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"

/*
 * `onboarding-services/client` is what a stranger installs: the declarations (operations tables,
 * HttpApis, generated descriptors), the domain and the client code, and none of the server. The
 * built entry point's import graph is walked as Node would load it (`npm test` builds first).
 */

const dist = fileURLToPath(new URL("../dist/", import.meta.url))
const entry = join(dist, "client/index.js")

const specifiers = (source: string): Array<string> =>
  [...source.matchAll(/(?:^|[\s;])(?:import|export)\s[^;]*?from\s*["']([^"']+)["']|(?:^|[\s;])import\s*\(?\s*["']([^"']+)["']/gm)]
    .map((match) => match[1] ?? match[2]!)

/** Every module of ours the entry point loads (paths under dist/), and every package or built-in it names. */
const importGraph = (start: string) => {
  const modules = new Set<string>()
  const packages = new Set<string>()
  const visit = (file: string) => {
    if (modules.has(file)) return
    modules.add(file)
    for (const specifier of specifiers(readFileSync(file, "utf8"))) {
      if (specifier.startsWith(".")) visit(join(dirname(file), specifier))
      else packages.add(specifier)
    }
  }
  visit(start)
  return { modules: [...modules].map((file) => relative(dist, file)).sort(), packages: [...packages].sort() }
}

/** What the client may carry: declarations, the domain, generated descriptors, client code. */
const declarations = [
  /^client\//,
  /^domain\/(?!OnboardingFingerprint\.js$)/,
  /^gen\//,
  /^operations\/(Org|Profile|License|Workflow)Operations\.js$/,
  /^operations\/WireShape\.js$/,
  /^transports\/ErrorCodes\.js$/,
  /^transports\/rest\/(HttpApis|RestErrors|FieldNames|ProtoNamesDocumented)\.js$/
]

/** The server's: its database and drivers, and Node's built-ins (the client's transports bring their own). */
const serverPackages = /^(@effect\/sql(-pg)?|pg|pg-.*|@electric-sql\/.*|@effect\/platform-node|node:.*)(\/|$)/

describe("the client package", () => {
  it("loads only declarations, the domain and client code: no server module, database driver or built-in", () => {
    const graph = importGraph(entry)
    expect(graph.modules).toContain("client/index.js")
    expect(graph.modules.filter((module) => !declarations.some((allowed) => allowed.test(module)))).toEqual([])
    expect(graph.packages.filter((name) => serverPackages.test(name))).toEqual([])
  })

  it("the walk sees what a server module would bring", () => {
    // The same walk from a server entry point reaches the services and the database driver: a
    // walk that missed imports would pass the test above for nothing.
    const graph = importGraph(join(dist, "main/org.js"))
    expect(graph.modules.some((module) => module.startsWith("services/"))).toBe(true)
    expect(graph.packages).toContain("@effect/sql-pg/PgClient")
  })
})
