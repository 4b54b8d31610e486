/**
 * Two builds of the services, CPU per call side by side: before (another checkout's `dist/`) and
 * after (this checkout's). `run.js` measures one build, then the other, minutes apart, each on new
 * processes; on a shared virtual machine whose speed drifts by 20% from one minute to the next,
 * three such pairs cannot tell 5% (docs/benchmarks.md §5). Here both builds' processes of the
 * operation's service run for the whole tool, each on a database of its own, and their windows
 * interleave: in each round every style is measured on both, one right after the other, the order
 * swapped every round, so a drift lands on both sides alike. The first round's windows come after
 * only `--warmup` seconds of load, as in `run.js`; later rounds see processes warmed by the earlier
 * ones.
 *
 * With `--fresh`, both processes are stopped and started again before every round (on the same
 * databases), so each round's windows come after `--warmup` seconds only. Without it, every round
 * measures the same two processes, and what one process's start happened to give it (V8 left a
 * function unoptimised for a whole run in 2 of 12 counted runs, docs/benchmarks.md §5) weighs on
 * every round alike: the rounds agree with each other and the next run disagrees with them all.
 * Fresh processes put that chance inside the rounds, where their median can see past it.
 *
 *   DATABASE_URL=… node dist/bench/bench/tools/buildPairs.js --before=<dist dir> <Operation> \
 *     [--styles=connect-json,connect-binary,grpc,rest,graphql] [--rounds=5] [--seconds=5] [--warmup=2] [--concurrency=64] [--fresh]
 *
 * It prints each window's CPU µs per call, each round's after ÷ before, and per style the median
 * of those ratios and the ratio of the sums. Both processes are stopped and their databases
 * dropped at the end, also on a failure.
 */
import { randomUUID } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { checkCall } from "../Check.js"
import { measureLoad } from "../load/measureLoad.js"
import { cpuMicros, freePort, start, type Started, stop } from "../Processes.js"
import { type Operation, operations, scenario, type Seed, serviceOf, type Style, styles } from "../Scenarios.js"
import { dropDatabase, seededDatabase } from "../TempDatabase.js"
import { median } from "./Median.js"

const args = process.argv.slice(2)
const value = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3)
const [operation] = args.filter((a) => !a.startsWith("--")) as [Operation]
const serverUrl = process.env["DATABASE_URL"] ?? ""
const beforeDist = value("before")
const chosen = (value("styles")?.split(",") ?? styles) as ReadonlyArray<Style>
if (!operations.includes(operation) || serverUrl === "" || beforeDist === undefined || !chosen.every((s) => styles.includes(s))) {
  console.error(
    "usage: DATABASE_URL=… buildPairs --before=<dist dir> <Operation> [--styles=connect-json,…] [--rounds=5] [--seconds=5] [--warmup=2] [--concurrency=64] [--fresh]"
  )
  process.exit(2)
}
const rounds = Number(value("rounds") ?? 5)
const seconds = Number(value("seconds") ?? 5)
const warmup = Number(value("warmup") ?? 2)
const concurrency = Number(value("concurrency") ?? 64)
const fresh = args.includes("--fresh")
const afterDist = fileURLToPath(new URL("../../../", import.meta.url))
const scratch = mkdtempSync(join(tmpdir(), "build-pairs-"))
const log = (line: string) => process.stderr.write(`${line}\n`)

interface Build {
  readonly label: "before" | "after"
  readonly dist: string
  started: Started | undefined
  readonly port: number
  readonly seed: Seed
  readonly database: { readonly name: string; readonly url: string }
}

const builds: Array<Build> = []

/** Starts the build's process on its database (again, after `stopProcess`). */
const startProcess = async (build: Build): Promise<Started> =>
  (build.started = await start({
    name: build.label,
    script: join(build.dist, `main/${serviceOf[operation]}.js`),
    env: { DATABASE_URL: build.database.url, PORT: String(build.port) },
    readyUrls: [`http://127.0.0.1:${build.port}/readyz`]
  }))

const stopProcess = async (build: Build) => {
  const started = build.started
  build.started = undefined
  if (started !== undefined) await stop(started)
}

const launch = async (label: Build["label"], dist: string): Promise<Build> => {
  const seed: Seed = { orgId: randomUUID(), profileId: randomUUID(), licenseId: randomUUID() }
  const database = await seededDatabase(serverUrl, "pairs", seed)
  const build: Build = { label, dist, started: undefined, port: await freePort(), seed, database }
  builds.push(build)
  await startProcess(build)
  return build
}

/** CPU µs per call of one window, after its warm-up. */
const window = async (build: Build, style: Style): Promise<number> => {
  const s = scenario(operation, style, build.seed)
  const url = `http://127.0.0.1:${build.port}`
  await checkCall(s, url)
  await measureLoad(s, url, { concurrency, seconds: warmup }, scratch)
  const pid = build.started!.child.pid!
  const cpuBefore = cpuMicros(pid)
  const measured = await measureLoad(s, url, { concurrency, seconds }, scratch)
  if (measured.errors > 0) throw new Error(`${build.label} ${operation} ${style}: ${measured.errors} calls failed`)
  return (cpuMicros(pid) - cpuBefore) / measured.requests
}

const sum = (values: ReadonlyArray<number>) => values.reduce((a, b) => a + b, 0)

const figures = new Map<Style, { before: Array<number>; after: Array<number> }>(chosen.map((s) => [s, { before: [], after: [] }]))
try {
  log(`${operation}: before ${beforeDist}, after ${afterDist}; ${rounds} rounds of ${chosen.join(", ")} at c${concurrency}, ` +
    `${warmup} s warm-up and ${seconds} s measured a window${fresh ? ", new processes every round" : ""}`)
  const before = await launch("before", beforeDist)
  const after = await launch("after", afterDist)
  for (let round = 1; round <= rounds; round++) {
    const pair = round % 2 === 1 ? [before, after] : [after, before]
    if (fresh && round > 1) {
      for (const build of pair) await stopProcess(build)
      for (const build of pair) await startProcess(build)
    }
    for (const style of chosen) {
      for (const build of pair) figures.get(style)![build.label].push(await window(build, style))
      const f = figures.get(style)!
      log(`  round ${round} ${style}: before ${f.before.at(-1)!.toFixed(0)} µs, after ${f.after.at(-1)!.toFixed(0)} µs`)
    }
  }
} finally {
  for (const build of builds) await stopProcess(build).catch(() => undefined)
  for (const build of builds) await dropDatabase(serverUrl, build.database.name).catch((e) => log(`could not drop ${build.database.name}: ${e}`))
  rmSync(scratch, { recursive: true, force: true })
}

const f2 = (n: number) => n.toFixed(2)
console.log(`${operation} at c${concurrency}, CPU µs per call, before · after by round${fresh ? " (new processes every round)" : ""}; after ÷ before\n`)
console.log("| style | before, µs | after, µs | after ÷ before, by round | median of the ratios | sum ÷ sum |")
console.log("|---|---|---|---|---:|---:|")
for (const [style, { before, after }] of figures) {
  const ratios = after.map((a, i) => a / before[i]!)
  console.log(`| ${style} | ${before.map((v) => v.toFixed(0)).join(", ")} | ${after.map((v) => v.toFixed(0)).join(", ")} | ` +
    `${ratios.map(f2).join(" · ")} | ${f2(median(ratios))} | ${f2(sum(after) / sum(before))} |`)
}
