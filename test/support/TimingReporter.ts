import { mkdirSync, writeFileSync } from "node:fs"
import { relative } from "node:path"
import type { Reporter } from "vitest/reporters"

/**
 * A vitest reporter that writes each test file's time, split as vitest measures it: `collect`
 * (importing the file and all it loads, then gathering its tests), `tests` (running them,
 * `beforeAll` hooks and layers included) and the whole, to `reports/test-timings.json`, and prints
 * the ten slowest files. `docs/testing.md` keeps the table; `.ci/run` uses it on every run.
 */
export default class TimingReporter implements Reporter {
  onFinished(files: ReadonlyArray<{ filepath: string; collectDuration?: number; setupDuration?: number; prepareDuration?: number; result?: { duration?: number }; tasks: ReadonlyArray<unknown> }>) {
    const seconds = (ms: number | undefined) => Math.round((ms ?? 0) / 100) / 10
    const rows = files.map((file) => {
      const collect = seconds(file.collectDuration)
      const tests = seconds(file.result?.duration)
      return { file: relative(process.cwd(), file.filepath), collect, tests, whole: Math.round((collect + tests) * 10) / 10 }
    }).sort((a, b) => b.whole - a.whole)
    mkdirSync("reports", { recursive: true })
    writeFileSync("reports/test-timings.json", `${JSON.stringify(rows, null, 2)}\n`)
    const total = (key: "collect" | "tests") => Math.round(rows.reduce((sum, row) => sum + row[key], 0))
    console.log(`\nslowest files (collect + tests, s; summed over workers: collect ${total("collect")} s, tests ${total("tests")} s):`)
    for (const row of rows.slice(0, 10)) console.log(`${String(row.whole).padStart(7)}  ${row.collect} + ${row.tests}  ${row.file}`)
  }
}
