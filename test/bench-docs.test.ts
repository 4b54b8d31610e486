import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { usage } from "../bench/Options.js"

const report = readFileSync(new URL("../docs/benchmarks.md", import.meta.url), "utf8")
const optionsIn = (text: string) => new Set([...text.matchAll(/--([a-z][a-z-]+)/g)].map(([, name]) => name!))

/**
 * The benchmark cannot run in the test suite (it wants a quiet machine for half an hour), so its
 * report's commands are held to the benchmark's own option parser's usage text instead: an option
 * the report shows that the benchmark does not take, or one it takes that the report leaves out,
 * fails here.
 */
describe("docs/benchmarks.md", () => {
  it("shows exactly the options `npm run bench` takes", () => {
    const running = report.split("## 1. Running it")[1]!.split("\n## ")[0]!
    expect([...optionsIn(running)].sort()).toEqual([...optionsIn(usage.split("Options:")[1]!)].sort())
  })
})
