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
import type { Cell, ProcessFigures, Results, Server } from "./Results.js"
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
import { noFailedRequests, targets, tracedOperations } from "./Targets.js"
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

/**
 * Errors a process logged while it was measured: a GraphQL error or a gRPC status arrives with
 * HTTP 200, which the load generators count as success, but the services log every internal one
 * (pretty or JSON lines alike).
 */
const errorsLogged = (started: Started) => (started.output().match(/\bERROR\b|"level":"error"/g) ?? []).length

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
 * Checks one call, warms the server up, then loads the scenario at each concurrency. A full run
 * warms up every scenario; --quick only the first of each style on each port (the JIT's work is
 * mostly per style), to stay within its time.
 */
const loadScenario = async (server: Server, s: Scenario, url: string, pid: number, concurrencies: ReadonlyArray<number>) => {
  if (!wanted(server, s.operation, s.style)) return
  await checkCall(s, url)
  counted(server, 1)
  const warmth = options.quick ? `${server} ${url} ${s.style}` : `${server} ${url} ${s.operation} ${s.style}`
  if (!warmed.has(warmth)) counted(server, (await measure(s, url, { concurrency: 16, seconds: options.warmupSeconds })).requests)
  warmed.add(warmth)
  for (const concurrency of concurrencies) {
    const before = cpuMicros(pid)
    const measured = await measure(s, url, { concurrency, seconds: options.seconds })
    counted(server, measured.requests)
    const cpuMicrosPerRequest = (cpuMicros(pid) - before) / Math.max(1, measured.requests)
    cells.push({ server, operation: s.operation, style: s.style, concurrency, measured, cpuMicrosPerRequest })
    log(`  ${server} ${s.operation} ${s.style} c${concurrency}: ${measured.rps.toFixed(0)} req/s, ` +
      `p50 ${measured.p50Ms.toFixed(1)} ms, p99 ${measured.p99Ms.toFixed(1)} ms, ${measured.errors} failed`)
  }
}

/** One process's share of the work: operations, each in every style given, at that style's URL. */
type Work = ReadonlyArray<readonly [Operation, Partial<Record<Style, string>>]>

/** Loads every scenario of `work` against one process, recording its memory. */
const loadProcess = async (
  server: Server,
  started: Started,
  work: Work,
  dataDirectory?: "new" | "existing",
  concurrencies = options.concurrencies
) => {
  await sleep(2_000)
  const idleMiB = rssMiB(started.child.pid!)
  const [, loadMiB] = await peakRss(started.child.pid!, async () => {
    for (const [operation, styleUrls] of work) {
      for (const [style, url] of Object.entries(styleUrls) as Array<[Style, string]>) {
        await loadScenario(server, scenario(operation, style, seed), url, started.child.pid!, concurrencies)
      }
    }
  })
  processes.push({
    server,
    name: started.name,
    readyMillis: started.readyMillis,
    idleMiB,
    loadMiB,
    errorsLogged: errorsLogged(started),
    ...(dataDirectory === undefined ? {} : { dataDirectory })
  })
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

/**
 * The org process again, with OTLP export configured as a user would (OTEL_EXPORTER_OTLP_ENDPOINT,
 * every call sampled), calls one at a time: its CPU per call is held to the untraced one's at c1
 * (issue 28). The spans go to a sink in this process that counts them.
 */
const tracedRun = async (env: Readonly<Record<string, string>>) => {
  if (!styles.some((style) => tracedOperations.some((op) => wanted("services-pg-traced", op, style)))) return
  if (!options.concurrencies.includes(1)) return log("traced run skipped: it compares calls one at a time (needs concurrency 1)")
  const sink = await otlpSink()
  try {
    const port = await freePort()
    const url = `http://127.0.0.1:${port}`
    log("services on PostgreSQL: org, traced (OTLP export, every call sampled)")
    const started = await start({
      name: "org (traced)",
      script: dist("main/org.js"),
      env: { ...env, PORT: String(port), OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_TRACES_SAMPLER: "always_on" },
      readyUrls: [`${url}/readyz`]
    })
    try {
      await loadProcess("services-pg-traced", started, each(tracedOperations, everyStyle(url)), undefined, [1])
    } finally {
      // Stopping flushes the last batch of spans.
      await stop(started)
    }
    traced = { calls: callsTo.get("services-pg-traced") ?? 0, spans: sink.spans() }
  } finally {
    await sink.close()
  }
}

const onPostgres = async (serverUrl: string) => {
  const database = await createDatabase(serverUrl, `bench_${randomBytes(4).toString("hex")}`)
  log(`PostgreSQL: database ${database.name}`)
  try {
    const env = { DATABASE_URL: database.url, DATABASE_POOL_SIZE: poolSize }
    // One process per service, started one after the other so that start-up times are not shared.
    const running: Array<[Service, Started, string]> = []
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
        running.push([service, started, url])
      }
      await seedRows((service) => running.find(([s]) => s === service)![2])
      for (const [service, started, url] of running) {
        log(`services on PostgreSQL: ${service}`)
        await loadProcess("services-pg", started, each(opsOf(service), everyStyle(url)))
      }
    } finally {
      for (const [, started] of running) await stop(started)
    }
    await tracedRun(env)

    if (!options.baselines) return
    // Every baseline runs under --quick too: (d), (f) and (g) are the peers the targets name; (h), (b),
    // (e), (a) and (c) are reported beside them.
    const baseline = async (server: BaselineServer) => {
      const { title, script, styles: served } = baselines[server]
      const [port, grpcPort] = [await freePort(), await freePort()]
      const work = each(
        operations,
        Object.fromEntries(served.map((style) => [style, `http://127.0.0.1:${style === "grpc" ? grpcPort : port}`]))
      )
      // Not started at all when --only leaves it nothing to serve.
      if (!operations.some((op) => served.some((style) => wanted(server, op, style)))) return
      log(`baseline (${server}): ${title}`)
      const started = await start({
        name: `baseline-${server}`,
        script: dist(`bench/bench/baselines/${script}`),
        env: { ...env, PORT: String(port), GRPC_PORT: String(grpcPort) }
      })
      try {
        await loadProcess(server, started, work)
      } finally {
        await stop(started)
      }
    }
    for (const server of Object.keys(baselines) as Array<BaselineServer>) await baseline(server)
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
    processes.push({
      server: "services-embedded",
      name: first.name,
      readyMillis: first.readyMillis,
      idleMiB: rssMiB(first.child.pid!),
      loadMiB: undefined,
      errorsLogged: errorsLogged(first),
      dataDirectory: "new"
    })
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
const results: Results = { cells, processes, concurrencies: options.concurrencies, ...(traced === undefined ? {} : { traced }) }
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
