import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

/**
 * The docs are references a stranger reads in minutes: each says how things are now, within a
 * length, and the history of runs and changes lives in the commit messages. This table is the one
 * place the lengths are declared.
 */
const limits: ReadonlyArray<readonly [page: string, lines: number]> = [
  // The first screen, the ways to run it, and the one block a TypeScript caller runs; the rest links out.
  ["README.md", 250],
  ["docs/architecture.md", 250],
  ["docs/benchmarks.md", 400],
  ["docs/reliability.md", 400],
  ["docs/testing.md", 300],
  ["docs/deployment.md", 400]
]

/** Pages that describe the code's layout, where a date or an issue number is history by definition. */
const timeless = ["docs/architecture.md"]

const root = fileURLToPath(new URL("../../", import.meta.url))

const lineCount = (text: string) => text.split("\n").length - (text.endsWith("\n") ? 1 : 0)

/** What is wrong with a page: past its length, or (for a timeless page) a date or an issue number. */
const pageProblems = (page: string, text: string, limit: number): ReadonlyArray<string> => {
  const problems: Array<string> = []
  const lines = lineCount(text)
  if (lines > limit) problems.push(`${page}: ${lines} lines, at most ${limit}`)
  if (timeless.includes(page)) {
    text.split("\n").forEach((line, index) => {
      for (const [found] of line.matchAll(/\b\d{4}-\d{2}-\d{2}\b|\bissues? #?\d+/gi)) {
        problems.push(`${page}:${index + 1}: "${found}" is history; it belongs in a commit message`)
      }
    })
  }
  return problems
}

describe("each doc within its length", () => {
  it.each(limits)("%s: at most %i lines", (page, limit) => {
    expect(pageProblems(page, readFileSync(`${root}${page}`, "utf8"), limit)).toEqual([])
  })
})

describe("the check fails a page that passes its length or carries history", () => {
  it("passes a page at its length, and fails one line more", () => {
    const page = "# Title\n" + "text\n".repeat(9)
    expect(pageProblems("docs/testing.md", page, 10)).toEqual([])
    expect(pageProblems("docs/testing.md", page + "one more\n", 10)).toEqual(["docs/testing.md: 11 lines, at most 10"])
  })

  it("fails dates and issue numbers on a timeless page only", () => {
    const page = "# Layout\n\nMoved on 2026-11-28 (issue 41); see issue #7.\n"
    expect(pageProblems("docs/architecture.md", page, 250)).toEqual([
      'docs/architecture.md:3: "2026-11-28" is history; it belongs in a commit message',
      'docs/architecture.md:3: "issue 41" is history; it belongs in a commit message',
      'docs/architecture.md:3: "issue #7" is history; it belongs in a commit message'
    ])
    expect(pageProblems("docs/benchmarks.md", page, 250)).toEqual([])
  })
})
