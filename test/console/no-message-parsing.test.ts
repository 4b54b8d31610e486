import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import ts from "typescript"

/**
 * The console reads a refusal's violations, never its message (src/console/Violations.ts). The
 * rule it keeps is the simplest that cannot be got round: no regular expression at all in
 * src/console — no literal, no `RegExp` — so none can be applied to a message.
 */
const regularExpressionsIn = (name: string, text: string): Array<string> => {
  const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true)
  const found: Array<string> = []
  const visit = (node: ts.Node) => {
    if (ts.isRegularExpressionLiteral(node) || (ts.isIdentifier(node) && node.text === "RegExp")) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart())
      found.push(`${name}:${line + 1}: ${node.getText()}`)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

describe("the console's code", () => {
  const folder = join(import.meta.dirname, "..", "..", "src", "console")

  it("holds no regular expression", () => {
    const files = readdirSync(folder).filter((file) => file.endsWith(".ts"))
    expect(files.length).toBeGreaterThan(5)
    expect(files.flatMap((file) => regularExpressionsIn(file, readFileSync(join(folder, file), "utf8")))).toEqual([])
  })

  it("the check finds each kind it looks for", () => {
    const sample = `const a = message.split(/;\\s+/)\nconst b = new RegExp("x")\nconst c = "a/b/c".length / 2 / 1`
    expect(regularExpressionsIn("sample.ts", sample)).toEqual(["sample.ts:1: /;\\s+/", "sample.ts:2: RegExp"])
  })
})
