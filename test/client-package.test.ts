import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { effectLineProblem } from "../src/client/EffectLine.js"

/*
 * `onboarding-services-client` (packages/client) is what a stranger installs: the declarations
 * (operations tables, HttpApis, generated descriptors), the domain and the client code, and none
 * of the server. The built entries' import graphs are walked as Node would load them (`npm test`
 * builds first).
 */

const dist = fileURLToPath(new URL("../dist/", import.meta.url))
const packageDir = fileURLToPath(new URL("../packages/client/", import.meta.url))
const packageDist = join(packageDir, "dist/")
const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as {
  readonly name: string
  readonly version: string
  readonly exports: Record<string, { readonly default: string }>
  readonly dependencies: Record<string, string>
  readonly peerDependencies: Record<string, string>
  readonly peerDependenciesMeta: Record<string, { readonly optional?: boolean }>
}
const rootManifest = JSON.parse(readFileSync(fileURLToPath(new URL("../package.json", import.meta.url)), "utf8")) as {
  readonly dependencies: Record<string, string>
  readonly devDependencies: Record<string, string>
}
type Entry = "." | "./connect" | "./node"
const entries: ReadonlyArray<Entry> = [".", "./connect", "./node"]
const entry = (name: Entry) => join(packageDir, manifest.exports[name]!.default)

const specifiers = (source: string): Array<string> =>
  [...source.matchAll(/(?:^|[\s;])(?:import|export)\s[^;]*?from\s*["']([^"']+)["']|(?:^|[\s;])import\s*\(?\s*["']([^"']+)["']/gm)]
    .map((match) => match[1] ?? match[2]!)

/** Every module of ours the entry point loads (paths under dist/), and every package or built-in it names. */
const importGraph = (start: string, root = dist) => {
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
  return { modules: [...modules].map((file) => relative(root, file)).sort(), packages: [...packages].sort() }
}

/** What the client may carry: the contract, the domain, generated descriptors, client code. */
const declarations = [
  /^client\//,
  /^domain\//,
  /^gen\//,
  /^contract\//
]

/** The server's: its database and drivers, and Node's built-ins (the client's transports bring their own). */
const serverPackages = /^(@effect\/sql(-pg)?|pg|pg-.*|@electric-sql\/.*|@effect\/platform-node|node:.*)(\/|$)/

/** A package a module names: `effect/Schema` is `effect`, `@effect/rpc/RpcClient` is `@effect/rpc`. */
const packageOf = (specifier: string) => specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/")

describe("the client package", () => {
  it("its main entry loads only declarations, the domain and client code: no server module, database driver, built-in or connect-node", () => {
    const graph = importGraph(entry("."), packageDist)
    expect(graph.modules).toContain("client/Exports.js")
    expect(graph.modules.filter((module) => !declarations.some((allowed) => allowed.test(module)))).toEqual([])
    expect(graph.packages.filter((name) => serverPackages.test(name))).toEqual([])
    // So that it bundles for a browser: the caller brings the transport (or takes `/node`'s).
    expect(graph.packages.filter((name) => name.startsWith("@connectrpc/connect-node"))).toEqual([])
  })

  it("the /node entry adds connect-node's transports and nothing of the server", () => {
    const graph = importGraph(entry("./node"), packageDist)
    expect(graph.modules.filter((module) => !declarations.some((allowed) => allowed.test(module)))).toEqual([])
    expect(graph.packages.map(packageOf)).toContain("@connectrpc/connect-node")
    expect(graph.packages.filter((name) => serverPackages.test(name))).toEqual([])
  })

  it("declares exactly the packages its entries load, the Effect line as peers", () => {
    expect(Object.keys(manifest.exports).filter((name) => name !== "./package.json").sort()).toEqual([...entries].sort())
    const used = new Set(entries.flatMap((name) => importGraph(entry(name), packageDist).packages.map(packageOf)))
    used.delete("onboarding-services-client")
    expect([...used].sort()).toEqual([...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies)].sort())
    expect(Object.keys(manifest.peerDependencies)).toEqual(expect.arrayContaining(["effect", "@effect/platform", "@effect/rpc"]))
  })

  it("the /connect entry loads the descriptors, error details and Connect client code, and none of Effect", () => {
    const graph = importGraph(entry("./connect"), packageDist)
    expect(graph.modules.filter((module) => !/^(gen\/|client\/(connect|ConnectClient)\.js$)/.test(module))).toEqual([])
    expect(graph.modules).toContain("gen/google/rpc/error_details_pb.js")
    expect([...new Set(graph.packages.map(packageOf))].sort()).toEqual(["@bufbuild/protobuf", "@connectrpc/connect"])
  })

  it("a consumer of /connect alone installs no Effect: every peer is optional", () => {
    expect(Object.keys(manifest.peerDependencies).filter((name) => manifest.peerDependenciesMeta[name]?.optional !== true)).toEqual([])
  })

  it("its entry offers every name its declarations do", async () => {
    const guarded = await import(entry("."))
    const declared = await import(join(packageDist, "client/Exports.js"))
    expect(Object.keys(guarded).sort()).toEqual(Object.keys(declared).sort())
  })

  it("refuses another Effect line in one line naming the versions found and the fix", () => {
    const wanted = { effect: "^3.22.4", "@effect/platform": "^0.97.2", "@effect/rpc": "^0.76.2" }
    expect(effectLineProblem({ effect: "3.22.4", "@effect/platform": "0.97.2", "@effect/rpc": "0.76.3" }, wanted)).toBeUndefined()
    expect(effectLineProblem({ effect: "3.30.0", "@effect/platform": "0.97.9", "@effect/rpc": "0.76.2" }, wanted)).toBeUndefined()
    expect(effectLineProblem({ effect: "4.1.0", "@effect/platform": "0.97.2", "@effect/rpc": "0.76.2" }, wanted)).toBe(
      "onboarding-services-client needs the Effect 3 line (effect ^3.22.4, @effect/platform ^0.97.2, @effect/rpc ^0.76.2)" +
        " and found effect 4.1.0, @effect/platform 0.97.2, @effect/rpc 0.76.2:" +
        " npm install effect@^3.22.4 @effect/platform@^0.97.2 @effect/rpc@^0.76.2"
    )
    expect(effectLineProblem({ effect: "3.22.4", "@effect/platform": "0.98.0", "@effect/rpc": "0.76.2" }, wanted)).toBeDefined()
    // The peers are optional, so npm may install none: the same line, naming each missing.
    expect(effectLineProblem({ effect: "3.22.4" }, wanted)).toBe(
      "onboarding-services-client needs the Effect 3 line (effect ^3.22.4, @effect/platform ^0.97.2, @effect/rpc ^0.76.2)" +
        " and found effect 3.22.4, @effect/platform missing, @effect/rpc missing:" +
        " npm install effect@^3.22.4 @effect/platform@^0.97.2 @effect/rpc@^0.76.2"
    )
    expect(effectLineProblem({ effect: "3.21.0", "@effect/platform": "0.97.2", "@effect/rpc": "0.76.2" }, wanted)).toBeDefined()
  })

  it("the walk sees what a server module would bring", () => {
    // The same walk from a server entry point reaches the services and the database driver: a
    // walk that missed imports would pass the test above for nothing.
    const graph = importGraph(join(dist, "main/entries/org.js"))
    expect(graph.modules.some((module) => module.startsWith("services/"))).toBe(true)
    expect(graph.packages).toContain("@effect/sql-pg/PgClient")
  })

  it("docs/examples.md's browser block installs the tarball, the Connect line the repository is built with, and its esbuild", () => {
    // `~`: on Node 20 npm takes connect-node's newest 2.1 release for the optional peer, and every
    // connect-es package names its own exact @connectrpc/connect (docs/examples.md, "In a browser").
    const page = readFileSync(fileURLToPath(new URL("../docs/examples.md", import.meta.url)), "utf8")
    const block = page.split("<!-- examples:browser -->")[1]!.split("<!-- /examples:browser -->")[0]!
    const installs = block.split("\n").filter((line) => line.startsWith("npm install")).flatMap((line) => line.split(" ").slice(2))
    expect(installs).toEqual([
      `./${manifest.name}-${manifest.version}.tgz`,
      `@connectrpc/connect@~${rootManifest.dependencies["@connectrpc/connect"]}`,
      `@connectrpc/connect-web@~${rootManifest.devDependencies["@connectrpc/connect-web"]}`,
      "--save-dev",
      `esbuild@${rootManifest.devDependencies["esbuild"]}`
    ])
    expect(block).toContain(`from "${manifest.name}/connect"`)
  })

  it("the README's consumer block installs the tarball npm pack makes, each peer in its range, and the repository's TypeScript", () => {
    const readme = readFileSync(fileURLToPath(new URL("../README.md", import.meta.url)), "utf8")
    const block = readme.split("<!-- examples:consumer -->")[1]!.split("<!-- /examples:consumer -->")[0]!
    const installs = block.split("\n").filter((line) => line.startsWith("npm install")).flatMap((line) => line.split(" ").slice(2))
    expect(installs).toEqual([
      `./${manifest.name}-${manifest.version}.tgz`,
      ...Object.entries(manifest.peerDependencies).map(([name, range]) => `${name}@${range}`),
      "--save-dev",
      ...["typescript", "@types/node"].map((name) => `${name}@${rootManifest.devDependencies[name]}`)
    ])
  })
})
