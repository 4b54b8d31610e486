import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

const src = fileURLToPath(new URL("../src/", import.meta.url))
const files = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : []
  )

/** Every module specifier a file names: imports and re-exports (type-only ones too), and `import()`. */
const specifiers = (file: string): Array<string> => {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true)
  const found: Array<string> = []
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text)
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments
      if (argument && ts.isStringLiteral(argument)) found.push(argument.text)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/** The files of `src/` (relative, as `services/Orgs.ts`) each hand-written file imports, generated code apart. */
const edges = (): Map<string, Array<string>> =>
  new Map(
    files(src).filter((file) => !relative(src, file).startsWith("gen/")).map((file) => [
      relative(src, file),
      specifiers(file).filter((s) => s.startsWith(".")).map((s) => relative(src, join(dirname(file), s)).replace(/\.js$/, ".ts"))
    ])
  )

/**
 * Which folders of `src/` each folder may import: main → transports → operations → services →
 * domain, with the contract (what a caller installs) beside them, importing only the domain and
 * the generated descriptors. The one way back: `operations/DatabaseAccess.ts` declares what the
 * edge needs of the database, which `services/` implements.
 */
const allowed: Record<string, ReadonlyArray<string>> = {
  domain: ["domain/"],
  contract: ["contract/", "domain/", "gen/"],
  services: ["services/", "domain/", "operations/DatabaseAccess.ts"],
  operations: ["operations/", "services/", "contract/", "domain/", "gen/"],
  transports: ["transports/", "operations/", "contract/", "domain/", "gen/"],
  main: ["main/", "transports/", "operations/", "services/", "contract/", "domain/", "gen/"],
  client: ["client/", "contract/", "domain/", "gen/"],
  console: ["console/"]
}

/** The files that take part in a circle of imports (each circle once, as its files). */
const circles = (graph: Map<string, Array<string>>): Array<Array<string>> => {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const onStack = new Set<string>()
  const found: Array<Array<string>> = []
  const connect = (file: string): void => {
    index.set(file, index.size)
    low.set(file, index.get(file)!)
    stack.push(file)
    onStack.add(file)
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue
      if (!index.has(next)) {
        connect(next)
        low.set(file, Math.min(low.get(file)!, low.get(next)!))
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!))
    }
    if (low.get(file) !== index.get(file)) return
    const circle: Array<string> = []
    for (let member = stack.pop()!; ; member = stack.pop()!) {
      onStack.delete(member)
      circle.push(member)
      if (member === file) break
    }
    if (circle.length > 1 || (graph.get(file) ?? []).includes(file)) found.push(circle.sort())
  }
  for (const file of graph.keys()) if (!index.has(file)) connect(file)
  return found
}

/**
 * A hand-written file this short with one importer is a part of that importer, not an idea of its
 * own. Entry points are imported by no one, and a one-service adapter (a service's handlers, its
 * Connect service) stands beside its three siblings.
 */
const fragmentLines = 30
const ownFile = /^(main\/entries\/|operations\/\w+OperationsLive\.ts$|transports\/connect\/(Org|Profile|License|Workflow)Service\.ts$)/

// These packages' entry points evaluate every module they hold (@effect/platform's bundles two
// API-documentation web pages of about 10 MB): importing them whole cost each service process
// about 30 MB of its idle memory. Source imports the modules it uses, by path.
// (`import { type X }` counts: with verbatimModuleSyntax it still loads the module.)
const barrels = /^import (?!type )(?:\{[^}]*\}|[\w*]+(?: as \w+)?) from "@effect\/(platform|platform-node|sql|sql-pg|rpc|experimental)"$/m

describe("imports", () => {
  const graph = edges()

  it("run one way: each folder imports only the folders below it, and the contract only the domain and descriptors", () => {
    const wrongWay = [...graph].flatMap(([file, targets]) => {
      const folder = file.split("/")[0]!
      const may = allowed[folder]
      if (may === undefined) return [`${file}: src/${folder} is in no row of the table`]
      return targets.filter((target) => !may.some((prefix) => target.startsWith(prefix))).map((target) => `${file} -> ${target}`)
    })
    expect(wrongWay).toEqual([])
  })

  it("make no circle, type-only imports included", () => {
    expect(circles(graph)).toEqual([])
  })

  it(`hold no file of ${fragmentLines} lines or fewer that only one other file imports`, () => {
    const importers = new Map<string, Array<string>>()
    for (const [file, targets] of graph) for (const target of targets) importers.set(target, [...importers.get(target) ?? [], file])
    const fragments = [...graph.keys()].filter((file) => {
      const lines = readFileSync(join(src, file), "utf8").trimEnd().split("\n").length
      return lines <= fragmentLines && importers.get(file)?.length === 1 && !ownFile.test(file)
    })
    expect(fragments.map((file) => `${file} (only in ${importers.get(file)![0]})`)).toEqual([])
  })

  it("the checks find what they look for", () => {
    expect(circles(new Map([["a.ts", ["b.ts"]], ["b.ts", ["a.ts"]], ["c.ts", ["a.ts"]]]))).toEqual([["a.ts", "b.ts"]])
    expect(specifiers(fileURLToPath(import.meta.url))).toContain("typescript")
  })

  it("no source file imports an Effect package through its entry point", () => {
    const offenders = files(src).filter((file) => barrels.test(readFileSync(file, "utf8")))
    expect(offenders).toEqual([])
  })
})
