import { describe, expect, it } from "@effect/vitest"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

const root = fileURLToPath(new URL("../", import.meta.url))
const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? entry.name === "gen" || entry.name === "node_modules" || entry.name === "dist"
        ? []
        : sourceFiles(join(dir, entry.name))
      : /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts")
      ? [join(dir, entry.name)]
      : []
  )

/** Hand-written source: `src/` and any workspace package's `src/`, generated code (`gen/`) apart. */
const handWritten = (): Array<string> => {
  const packages = join(root, "packages")
  const packageSources = readdirSync(packages, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(packages, entry.name, "src")))
    .map((entry) => join(packages, entry.name, "src"))
  return [join(root, "src"), ...packageSources].flatMap(sourceFiles)
}

interface Counts {
  readonly assertions: number
  readonly nonNull: number
}

/** `x as T` and `<T>x` (not `as const`), and `x!`, as the compiler parses them. */
const count = (name: string, text: string): Counts => {
  const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  let assertions = 0
  let nonNull = 0
  const visit = (node: ts.Node): void => {
    if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) {
      const isConst = ts.isTypeReferenceNode(node.type) && node.type.typeName.getText(source) === "const"
      if (!isConst) assertions++
    } else if (ts.isNonNullExpression(node)) {
      nonNull++
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return { assertions, nonNull }
}

// Each assertion or `!` is a place where the compiler takes our word for a type: the counts may
// fall, and these limits with them, but not grow.
const maxAssertions = 61
const maxNonNull = 42
const maxLines = 250

describe("hand-written source", () => {
  const files = handWritten()

  it(`has at most ${maxAssertions} type assertions and ${maxNonNull} non-null assertions`, () => {
    const perFile = files.map((file) => ({ file: relative(root, file), ...count(file, readFileSync(file, "utf8")) }))
    const assertions = perFile.reduce((sum, { assertions }) => sum + assertions, 0)
    const nonNull = perFile.reduce((sum, { nonNull }) => sum + nonNull, 0)
    const listing = perFile
      .filter((entry) => entry.assertions + entry.nonNull > 0)
      .map((entry) => `${entry.file}: ${entry.assertions} as, ${entry.nonNull} !`)
      .join("\n")
    expect(assertions, listing).toBeLessThanOrEqual(maxAssertions)
    expect(nonNull, listing).toBeLessThanOrEqual(maxNonNull)
  })

  it("counts what the compiler takes on trust, and nothing else", () => {
    const text = [
      `import * as Fs from "node:fs"`,
      `const a = Fs as unknown as number`,
      `const b = <string>(a as unknown)`,
      `const c = [1, 2] as const`,
      `const d = [b][0]!.length`,
      `const e = { a } satisfies object`
    ].join("\n")
    // Two in `as unknown as number`, two in `<string>(a as unknown)`; `as const`, `import * as` and `satisfies` are not.
    expect(count("sample.ts", text)).toEqual({ assertions: 4, nonNull: 1 })
  })

  it(`has no file over ${maxLines} lines`, () => {
    const long = files
      .map((file) => ({ file: relative(root, file), lines: readFileSync(file, "utf8").trimEnd().split("\n").length }))
      .filter(({ lines }) => lines > maxLines)
    expect(long).toEqual([])
  })
})
