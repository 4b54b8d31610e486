/**
 * `npm run bench`: the services side by side with their baselines, on this machine, in one run.
 * See docs/benchmarks.md for what is measured and why; `--help` for the options.
 */
import { randomBytes, randomUUID } from "node:crypto"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { type BaselineServer, baselines } from "./Baselines.js"
import { checkCall } from "./Check.js"
import type { Load, Measured } from "./load/Measured.js"
import { measureLoad } from "./load/measureLoad.js"
import { pgbench } from "./load/pgbench.js"
import { machine } from "./Machine.js"
import { npmStartCommand } from "./NpmStart.js"
import { otlpSink } from "./OtlpSink.js"
import { parseOptions, usage } from "./Options.js"
import { handWrittenOf, idiomaticOf, peerOf } from "./Peers.js"
import { cpuMicros, freePort, peakRss, rssMiB, start, type Started, stop } from "./Processes.js"
import { report } from "./Report.js"
import type { Cell, ProcessFigures, Results, Server, TracedWindow } from "./Results.js"
import {
  type Operation,
  operations,
  pgbenchWorkflowScript,
  type Scenario,
  scenario,
  type Seed,
  seedRequests,
  type Service,
  serviceOf,
  type Style,
  styles
} from "./Scenarios.js"
import { createDatabase, dropDatabase } from "./TempDatabase.js"
import { noFailedRequests, targets, tracedOperations, tracedRounds } from "./Targets.js"
import { ensureTools } from "./Tools.js"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const dist = (path: string) => join(root, "dist", path)

const options = parseOptions(process.argv.slice(2))
if (options === "help") {
  console.log(usage)
  process.exit(0)
}
ensureTools((process.env["DATABASE_URL"] ?? "") !== "")
const scratch = mkdtempSync(join(tmpdir(), "onboarding-bench-"))
const cells: Array<Cell> = []
const processes: Array<ProcessFigures> = []
const seed: Seed = { orgId: randomUUID(), profileId: randomUUID(), licenseId: randomUUID() }
const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis))
const log = (line: string) => process.stderr.write(`${line}\n`)

const measure = (s: Scenario, url: string, load: Load): Promise<Measured> =>
  measureLoad(s, url, load, scratch)

const warmed = new Set<string>()
/** Calls made to each server, check and warm-up calls included: the traced run's spans are counted against them. */
const callsTo = new Map<Server, number>()
const counted = (server: Server, requests: number) => callsTo.set(server, (callsTo.get(server) ?? 0) + requests)

/**
 * Whether --only leaves a scenario in: ours when it matches; a baseline's also when it is the
 * minimal Effect peer ((d), (f), (g)), the idiomatic one ((h)) or the hand-written peer ((b), (e))
 * of one of ours that matches, or (a)'s floor for its operation, so that every row's ratios fill in.
 */
const wanted = (server: Server, operation: Operation, style: Style) => {
  const matches = (s: Style) => options.only === undefined || options.only.test(`${operation} ${s}`)
  if (matches(style)) return true
  if (server === "services-pg" || server === "services-pg-traced" || server === "services-embedded") return false
  return styles.some((ours) =>
    matches(ours) &&
    (server === "a" ||
      [peerOf(ours), handWrittenOf(ours), idiomaticOf(ours)].some((peer) => peer?.server === server && peer.style === style))
  )
}

/**
 * Checks one call of a scenario and warms its server up, unless it already was: a full run warms
 * up every scenario; --quick only the first of each style on each port (the JIT's work is mostly
 * per style), to stay within its time.
 */
const prepare = async (server: Server, s: Scenario, url: string) => {
  await checkCall(s, url)
  counted(server, 1)
  const warmth = options.quick ? `${server} ${url} ${s.style}` : `${server} ${url} ${s.operation} ${s.style}`
  if (!warmed.has(warmth)) counted(server, (await measure(s, url, { concurrency: 16, seconds: options.warmupSeconds })).requests)
  warmed.add(warmth)
}

/** One window of a scenario at one concurrency, with the serving process's CPU time over it. */
const measureWindow = async (server: Server, s: Scenario, url: string, pid: number, concurrency: number) => {
  const before = cpuMicros(pid)
  const measured = await measure(s, url, { concurrency, seconds: options.seconds })
  counted(server, measured.requests)
  return { measured, cpuMicros: cpuMicros(pid) - before }
}

/** Loads a scenario at one concurrency and records the cell, with the serving process's CPU per call. */
const measureCell = async (server: Server, s: Scenario, url: string, pid: number, concurrency: number) => {
  const { cpuMicros: micros, measured } = await measureWindow(server, s, url, pid, concurrency)
  const cpuMicrosPerRequest = micros / Math.max(1, measured.requests)
  cells.push({ server, operation: s.operation, style: s.style, concurrency, measured, cpuMicrosPerRequest })
  log(`  ${server} ${s.operation} ${s.style} c${concurrency}: ${measured.rps.toFixed(0)} req/s, ` +
    `p50 ${measured.p50Ms.toFixed(1)} ms, p99 ${measured.p99Ms.toFixed(1)} ms, ${measured.errors} failed`)
}

/** Checks one call, warms the server up, then loads the scenario at each concurrency. */
const loadScenario = async (server: Server, s: Scenario, url: string, pid: number) => {
  if (!wanted(server, s.operation, s.style)) return
  await prepare(server, s, url)
  for (const concurrency of options.concurrencies) await measureCell(server, s, url, pid, concurrency)
}

/** A process measured beside others in the same scenario: who it is, and where it serves a style. */
interface Contender {
  readonly server: Server
  readonly started: Started
  readonly urlOf: (style: Style) => string | undefined
}

let turn = 0
/**
 * One scenario on ours and the processes it is compared with, their windows back to back at each
 * concurrency, the order swapped every time: on these machines the speed drifts by a fifth within
 * the hour, so a ratio is only fair between windows measured minutes apart at most.
 */
const loadTogether = async (operation: Operation, style: Style, contenders: ReadonlyArray<Contender>) => {
  const here = contenders.flatMap((c) => {
    const url = c.urlOf(style)
    return url !== undefined && wanted(c.server, operation, style) ? [{ ...c, url }] : []
  })
  const s = scenario(operation, style, seed)
  for (const c of here) await prepare(c.server, s, c.url)
  for (const concurrency of options.concurrencies) {
    for (const c of turn++ % 2 === 0 ? here : [...here].reverse()) {
      await measureCell(c.server, s, c.url, c.started.child.pid!, concurrency)
    }
  }
  await tracedWindowsOf(s, here)
}

const tracedWindows: Array<TracedWindow> = []

/**
 * Further c1 windows of the org process untraced and traced, alternated, after the scenario's own:
 * a c1 window holds a few hundred to a thousand calls while V8 is still compiling, and one window
 * alone can read the traced process far above what windows measured apart read (docs/benchmarks.md
 * §2, "Traced"). The traced target reads them all, with the c1 cells.
 */
const tracedWindowsOf = async (s: Scenario, here: ReadonlyArray<Contender & { readonly url: string }>) => {
  const pair = here.filter((c): c is typeof c & { readonly server: TracedWindow["server"] } =>
    c.server === "services-pg" || c.server === "services-pg-traced"
  )
  if (pair.length !== 2 || !options.concurrencies.includes(1)) return
  for (let round = 0; round < tracedRounds; round++) {
    for (const c of round % 2 === 0 ? [...pair].reverse() : pair) {
      const { cpuMicros: micros, measured } = await measureWindow(c.server, s, c.url, c.started.child.pid!, 1)
      tracedWindows.push({ server: c.server, operation: s.operation, style: s.style, requests: measured.requests, cpuMicros: micros })
    }
  }
}

/** One process's share of the work: operations, each in every style given, at that style's URL. */
type Work = ReadonlyArray<readonly [Operation, Partial<Record<Style, string>>]>

/**
 * Records a process's figures: idle RSS when measured `idleMiB` before its load, the peak during it,
 * the errors it logged.
 */
const record = (server: Server, started: Started, idleMiB: number, loadMiB: number | undefined, dataDirectory?: "new" | "existing") =>
  processes.push({
    server,
    name: started.name,
    readyMillis: started.readyMillis,
    idleMiB,
    loadMiB,
    errorsLogged: started.errorsLogged(),
    ...(dataDirectory === undefined ? {} : { dataDirectory })
  })

/** Loads every scenario of `work` against one process, alone, recording its memory. */
const loadProcess = async (server: Server, started: Started, work: Work, dataDirectory?: "new" | "existing") => {
  await sleep(2_000)
  const idleMiB = rssMiB(started.child.pid!)
  const [, [loadMiB]] = await peakRss([started.child.pid!], async () => {
    for (const [operation, styleUrls] of work) {
      for (const [style, url] of Object.entries(styleUrls) as Array<[Style, string]>) {
        await loadScenario(server, scenario(operation, style, seed), url, started.child.pid!)
      }
    }
  })
  record(server, started, idleMiB, loadMiB, dataDirectory)
}

/** The same styles for every operation. */
const each = (ops: ReadonlyArray<Operation>, styleUrls: Partial<Record<Style, string>>): Work =>
  ops.map((operation) => [operation, styleUrls] as const)

const seedRows = async (urlOf: (service: Service) => string) => {
  for (const request of seedRequests(seed)) {
    const response = await fetch(`${urlOf(request.service)}${request.path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(request.body)
    })
    if (!response.ok) throw new Error(`seeding ${request.path}: HTTP ${response.status} ${await response.text()}`)
  }
}

const everyStyle = (url: string) => Object.fromEntries(styles.map((style) => [style, url])) as Record<Style, string>
const services: ReadonlyArray<Service> = ["org", "profile", "license", "workflow"]
const opsOf = (service: Service) => operations.filter((op) => serviceOf[op] === service)
const poolSize = process.env["DATABASE_POOL_SIZE"] ?? "10"
let traced: Results["traced"]

/** A baseline's process, or undefined when --only leaves it nothing to serve. */
const startBaseline = async (server: BaselineServer, env: Readonly<Record<string, string>>): Promise<Contender | undefined> => {
  const { title, script, styles: served } = baselines[server]
  if (!operations.some((op) => served.some((style) => wanted(server, op, style)))) return undefined
  const [port, grpcPort] = [await freePort(), await freePort()]
  log(`baseline (${server}): ${title}`)
  const started = await start({
    name: `baseline-${server}`,
    script: dist(`bench/bench/baselines/${script}`),
    env: { ...env, PORT: String(port), GRPC_PORT: String(grpcPort) }
  })
  const urlOf = (style: Style) =>
    (served as ReadonlyArray<Style>).includes(style) ? `http://127.0.0.1:${style === "grpc" ? grpcPort : port}` : undefined
  return { server, started, urlOf }
}

/**
 * The org process again, with OTLP export configured as a user would (OTEL_EXPORTER_OTLP_ENDPOINT,
 * every call sampled): its CPU per call at c1 is held to the untraced one's (docs/benchmarks.md §3). It is
 * loaded as the untraced one is, at every concurrency, so that both have had the same calls when
 * their c1 windows are compared: at c1, V8 is still compiling and deoptimising for half a minute
 * after a 2 s warm-up, longer with the exporter's own HTTP requests in the process, and a
 * process loaded less is measured colder. The spans go to a sink in this process that counts them.
 */
const startTraced = async (env: Readonly<Record<string, string>>, sinkUrl: string): Promise<Contender> => {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  log("services on PostgreSQL: org, traced (OTLP export, every call sampled)")
  const started = await start({
    name: "org (traced)",
    script: dist("main/org.js"),
    env: { ...env, PORT: String(port), OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl, OTEL_TRACES_SAMPLER: "always_on" },
    readyUrls: [`${url}/readyz`]
  })
  return { server: "services-pg-traced", started, urlOf: () => url }
}

const wantsTraced = () => {
  if (!styles.some((style) => tracedOperations.some((op) => wanted("services-pg-traced", op, style)))) return false
  if (options.concurrencies.includes(1)) return true
  log("traced run skipped: it compares calls one at a time (needs concurrency 1)")
  return false
}

/**
 * The baselines whose ratios are targets ((d), (f), (g)) or reported beside REST's ((h)) run
 * beside ours, scenario by scenario (loadTogether); the hand-written peers, Node's floor and
 * pgbench, which no target names, after them, one at a time, as before.
 */
const paired: ReadonlyArray<BaselineServer> = ["d", "f", "g", "h"]

const onPostgres = async (serverUrl: string) => {
  const database = await createDatabase(serverUrl, `bench_${randomBytes(4).toString("hex")}`)
  log(`PostgreSQL: database ${database.name}`)
  const sink = wantsTraced() ? await otlpSink() : undefined
  try {
    const env = { DATABASE_URL: database.url, DATABASE_POOL_SIZE: poolSize }
    // Every process is started one after the other, so that start-up times are not shared.
    const ours: Array<[Service, Contender]> = []
    const beside: Array<Contender> = []
    let tracedOrg: Contender | undefined
    const everyone = () => [...ours.map(([, c]) => c), ...(tracedOrg === undefined ? [] : [tracedOrg]), ...beside]
    try {
      for (const service of services) {
        const port = await freePort()
        const url = `http://127.0.0.1:${port}`
        const started = await start({
          name: service,
          script: dist(`main/${service}.js`),
          env: { ...env, PORT: String(port) },
          readyUrls: [`${url}/readyz`]
        })
        ours.push([service, { server: "services-pg", started, urlOf: () => url }])
      }
      if (sink !== undefined) tracedOrg = await startTraced(env, sink.url)
      if (options.baselines) {
        for (const server of paired) {
          const contender = await startBaseline(server, env)
          if (contender !== undefined) beside.push(contender)
        }
      }
      await seedRows((service) => ours.find(([s]) => s === service)![1].urlOf("rest")!)
      await sleep(2_000)
      const measured = everyone()
      const idle = measured.map((c) => rssMiB(c.started.child.pid!))
      const [, peaks] = await peakRss(measured.map((c) => c.started.child.pid!), async () => {
        for (const [service, own] of ours) {
          log(`services on PostgreSQL: ${service}, beside ${beside.map((c) => `(${c.server})`).join(" ") || "no baseline"}`)
          for (const operation of opsOf(service)) {
            const traced = tracedOrg !== undefined && tracedOperations.includes(operation) ? [tracedOrg] : []
            for (const style of styles) await loadTogether(operation, style, [own, ...traced, ...beside])
          }
        }
      })
      measured.forEach((c, i) => record(c.server, c.started, idle[i]!, peaks[i]))
    } finally {
      // Stopping the traced process flushes its last batch of spans.
      for (const c of everyone()) await stop(c.started)
    }
    if (sink !== undefined) traced = { calls: callsTo.get("services-pg-traced") ?? 0, spans: sink.spans() }

    if (!options.baselines) return
    for (const server of (Object.keys(baselines) as Array<BaselineServer>).filter((s) => !paired.includes(s))) {
      const contender = await startBaseline(server, env)
      if (contender === undefined) continue
      try {
        const work = each(operations, Object.fromEntries(styles.flatMap((style) => {
          const url = contender.urlOf(style)
          return url === undefined ? [] : [[style, url]]
        })))
        await loadProcess(server, contender.started, work)
      } finally {
        await stop(contender.started)
      }
    }
    if (options.only === undefined || options.only.test("CreateOnboardingWorkflow pgbench")) {
      log("baseline (c): pgbench")
      const script = pgbenchWorkflowScript()
      for (const concurrency of options.concurrencies) {
        const measured = await pgbench(script, database.url, { concurrency, seconds: options.seconds }, scratch)
        cells.push({ server: "c", operation: "CreateOnboardingWorkflow", style: "pgbench", concurrency, measured })
        log(`  c CreateOnboardingWorkflow pgbench c${concurrency}: ${measured.rps.toFixed(0)} tps`)
      }
    }
  } finally {
    await sink?.close()
    await dropDatabase(serverUrl, database.name)
  }
}

/**
 * The embedded default as a user meets it: the all-in-one process first on a new data directory
 * (which it initialises), stopped, then again on the same directory, which is the one loaded. Both
 * start-ups are recorded: ready time and idle RSS, each target names one of them.
 */
const onEmbedded = async () => {
  const ports = Object.fromEntries(await Promise.all(services.map(async (s) => [s, await freePort()] as const)))
  const urlOf = (service: Service) => `http://127.0.0.1:${ports[service]}`
  const dataDir = join(scratch, "data")
  const npmStart = npmStartCommand()
  const startAll = (dataDirectory: "new" | "existing") =>
    start({
      name: `all (embedded, ${dataDirectory} data directory)`,
      script: npmStart.file,
      nodeArgs: npmStart.nodeArgs,
      env: {
        ...npmStart.env,
        DATABASE_URL: "",
        DATA_DIR: dataDir,
        ORG_PORT: String(ports["org"]),
        PROFILE_PORT: String(ports["profile"]),
        LICENSE_PORT: String(ports["license"]),
        WORKFLOW_PORT: String(ports["workflow"])
      },
      readyUrls: services.map((s) => `${urlOf(s)}/readyz`)
    })
  log("services on the embedded database: start on a new data directory")
  const first = await startAll("new")
  try {
    await sleep(2_000)
    record("services-embedded", first, rssMiB(first.child.pid!), undefined, "new")
  } finally {
    await stop(first)
  }
  log("services on the embedded database: start again on the same data directory, and load it")
  const started = await startAll("existing")
  try {
    await seedRows(urlOf)
    await loadProcess("services-embedded", started, services.flatMap((s) => each(opsOf(s), everyStyle(urlOf(s)))), "existing")
  } finally {
    await stop(started)
  }
}

const began = performance.now()
try {
  const serverUrl = process.env["DATABASE_URL"]
  if (serverUrl !== undefined && serverUrl !== "") await onPostgres(serverUrl)
  if (options.embedded) await onEmbedded()
} finally {
  rmSync(scratch, { recursive: true, force: true })
}
const results: Results = {
  cells,
  processes,
  concurrencies: options.concurrencies,
  ...(traced === undefined ? {} : { traced }),
  ...(tracedWindows.length === 0 ? {} : { tracedWindows })
}
const minutes = ((performance.now() - began) / 60_000).toFixed(1)
const text = [
  `## Benchmark ${new Date().toISOString()} (${options.quick ? "--quick" : "full"}, ${minutes} min)`,
  await machine(),
  `${options.seconds} s per measurement after a ${options.warmupSeconds} s warm-up per scenario; latencies in ms; ` +
  `pool of ${poolSize} connections per process.`,
  report(results)
].join("\n\n")
console.log(text)
mkdirSync(join(root, "reports"), { recursive: true })
const stamp = new Date().toISOString().replace(/[:.]/g, "-")
writeFileSync(join(root, "reports", `bench-${stamp}.md`), text + "\n")
writeFileSync(join(root, "reports", `bench-${stamp}.json`), JSON.stringify({ options, results }, null, 2))
// A failed request fails the run; a target missed does not (the table says so).
if (targets(results).some((t) => t.target === noFailedRequests && t.verdict === "NO")) process.exitCode = 1
