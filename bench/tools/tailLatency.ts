/**
 * Where the tail comes from (issue 41, item 1): one operation in one style, ours beside the
 * style's minimal Effect peer ((d) REST, (f) Connect and gRPC, (g) GraphQL), each on a database
 * of its own and under a probe of its own (bench/tools/tailProbe.ts, `node --import`: event-loop
 * delay at 1 ms resolution and GC pauses, over the measured window only). At each concurrency,
 * ours then the peer: a warm-up, then the measured window, in which the load generator keeps
 * every call's latency (p50 … max) and, for ours, `/metrics` is sampled every 200 ms (the
 * database gate's queue, units holding a permit, calls in flight). One Markdown table per run.
 *
 *   DATABASE_URL=… node dist/bench/bench/tools/tailLatency.js <Operation> <style> \
 *     [--seconds=10] [--warmup=5] [--concurrency=16,64] [--dist=<dir>] [--json=<file>]
 *
 * Both servers run for the whole tool, the idle one idle; both are stopped and their databases
 * dropped at the end, also on a failure. `--json=<file>` writes the raw figures too; `--dist=<dir>`
 * runs ours from another build's `dist/` (default: this checkout's).
 */
import { randomUUID } from "node:crypto"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { baselineOf } from "../Baselines.js"
import { checkCall } from "../Check.js"
import type { Load, Measured } from "../load/Measured.js"
import { measureLoad } from "../load/measureLoad.js"
import { peerOf } from "../Peers.js"
import { cpuMicros, freePort, start, type Started, stop } from "../Processes.js"
import { type Operation, operations, type Scenario, scenario, type Seed, serviceOf, type Style, styles } from "../Scenarios.js"
import { dropDatabase, seededDatabase } from "../TempDatabase.js"
import { probe, type ProbeWindow, type QueueFigures, sampleQueues } from "./TailSampling.js"

const root = fileURLToPath(new URL("../../../../", import.meta.url))
const args = process.argv.slice(2)
const value = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3)
const [operation, style] = args.filter((a) => !a.startsWith("--")) as [Operation, Style]
const serverUrl = process.env["DATABASE_URL"] ?? ""
if (!operations.includes(operation) || !styles.includes(style) || serverUrl === "") {
  console.error("usage: DATABASE_URL=… tailLatency <Operation> <style> [--seconds=10] [--warmup=5] [--concurrency=16,64] [--dist=<dir>] [--json=<file>]")
  process.exit(2)
}
const seconds = Number(value("seconds") ?? 10)
const warmup = Number(value("warmup") ?? 5)
const concurrencies = (value("concurrency") ?? "16,64").split(",").map(Number)
const peer = peerOf(style)
const oursDist = value("dist") ?? join(root, "dist")
const scratch = mkdtempSync(join(tmpdir(), "tail-latency-"))
const probeModule = pathToFileURL(fileURLToPath(new URL("./tailProbe.js", import.meta.url))).href
const log = (line: string) => process.stderr.write(`${line}\n`)

const measure = (s: Scenario, url: string, load: Load): Promise<Measured> =>
  measureLoad(s, url, load, scratch)

interface Server {
  readonly label: string
  readonly started: Started
  readonly url: string
  /** Our process's /metrics, where the queue gauges are. */
  readonly metricsUrl: string | undefined
  readonly probe: ReturnType<typeof probe<ProbeWindow>>
  readonly seed: Seed
}

interface Row {
  readonly server: string
  readonly concurrency: number
  readonly measured: Measured
  readonly cpuPercent: number
  readonly window: ProbeWindow
  readonly queues: QueueFigures | undefined
  readonly load: ReadonlyArray<number>
}

const servers: Array<Server> = []
const databases: Array<string> = []

const launch = async (which: "ours" | typeof peer.server): Promise<Server> => {
  const seed: Seed = { orgId: randomUUID(), profileId: randomUUID(), licenseId: randomUUID() }
  const database = await seededDatabase(serverUrl, "tail", seed)
  databases.push(database.name)
  const [port, grpcPort] = [await freePort(), await freePort()]
  const directory = mkdtempSync(join(scratch, `${which}-`))
  const ours = which === "ours"
  const baseline = baselineOf(which)
  const started = await start({
    name: which,
    script: ours ? join(oursDist, `main/${serviceOf[operation]}.js`) : join(root, "dist/bench/bench/baselines", baseline!.script),
    env: { DATABASE_URL: database.url, PORT: String(port), GRPC_PORT: String(grpcPort), TAIL_PROBE_DIR: directory },
    nodeArgs: [`--import=${probeModule}`],
    ...(ours ? { readyUrls: [`http://127.0.0.1:${port}/readyz`] } : {})
  })
  const url = `http://127.0.0.1:${!ours && style === "grpc" ? grpcPort : port}`
  const server: Server = {
    label: ours ? "ours" : `(${which})`,
    started,
    url,
    metricsUrl: ours ? `http://127.0.0.1:${port}` : undefined,
    probe: probe(started.child, directory),
    seed
  }
  servers.push(server)
  return server
}

const measureOne = async (server: Server, concurrency: number): Promise<Row> => {
  const s = scenario(operation, style, server.seed)
  await checkCall(s, server.url)
  await measure(s, server.url, { concurrency, seconds: warmup })
  const pid = server.started.child.pid!
  await server.probe.open()
  const sampler = server.metricsUrl === undefined ? undefined : sampleQueues(server.metricsUrl)
  const cpuBefore = cpuMicros(pid)
  const began = performance.now()
  const measured = await measure(s, server.url, { concurrency, seconds })
  const wallMicros = (performance.now() - began) * 1000
  const cpuPercent = ((cpuMicros(pid) - cpuBefore) / wallMicros) * 100
  const window = await server.probe.close()
  const queues = await sampler?.stop()
  const row = { server: server.label, concurrency, measured, cpuPercent, window, queues, load: loadavg() }
  log(`  ${server.label} c${concurrency}: ${measured.rps.toFixed(0)}/s, p99 ${measured.p99Ms.toFixed(1)} ms, ` +
    `max ${measured.maxMs?.toFixed(1)} ms, ELD p99 ${window.eventLoop.p99Ms.toFixed(1)} ms, GC ${window.gc.count} pauses, ` +
    `${measured.errors} failed, load ${row.load.map((l) => l.toFixed(1)).join(" ")}`)
  return row
}

const f1 = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? "-" : n.toFixed(1))
const f0 = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? "-" : n.toFixed(0))

const table = (rows: ReadonlyArray<Row>) => {
  const lines = [
    `${operation} ${style}, ${seconds} s after ${warmup} s of warm-up; latencies and pauses in ms; ` +
    `ELD = event-loop delay (1 ms resolution); ` +
    `pool waiting, work held and calls in flight from /metrics every 200 ms (ours only); load = 1-minute load average at the window's end.`,
    "",
    "| server | c | calls/s | CPU % | p50 | p90 | p99 | p99.9 | max | ELD p50 | ELD p99 | ELD max | GC /s | GC ms/s | GC max | " +
    "pool waiting max · mean | work held max · mean | in flight max · mean | failed | load |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  ]
  for (const r of rows) {
    const { measured: m, window: w, queues: q } = r
    const pair = (g: { max: number; mean: number } | undefined) => (g === undefined ? "-" : `${f0(g.max)} · ${f1(g.mean)}`)
    lines.push(
      `| ${r.server} | ${r.concurrency} | ${f0(m.rps)} | ${f0(r.cpuPercent)} | ${f1(m.p50Ms)} | ${f1(m.p90Ms)} | ${f1(m.p99Ms)} | ` +
        `${f1(m.p999Ms)} | ${f1(m.maxMs)} | ${f1(w.eventLoop.p50Ms)} | ${f1(w.eventLoop.p99Ms)} | ${f1(w.eventLoop.maxMs)} | ` +
        `${f0(w.gc.count / w.seconds)} | ${f1(w.gc.totalMs / w.seconds)} | ${f1(w.gc.maxMs)} | ${pair(q?.poolWaiting)} | ` +
        `${pair(q?.workHeld)} | ${pair(q?.callsInFlight)} | ${m.errors} | ${f1(r.load[0])} |`
    )
  }
  lines.push("")
  for (const c of concurrencies) {
    const [ours, theirs] = [rows.find((r) => r.server === "ours" && r.concurrency === c), rows.find((r) => r.server !== "ours" && r.concurrency === c)]
    if (ours === undefined || theirs === undefined) continue
    const ratio = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined || !(b > 0) ? "-" : (a / b).toFixed(2))
    lines.push(`c${c}, ours ÷ (${peer.server}): p99 ${ratio(ours.measured.p99Ms, theirs.measured.p99Ms)}, ` +
      `p99.9 ${ratio(ours.measured.p999Ms, theirs.measured.p999Ms)}, calls/s ${ratio(ours.measured.rps, theirs.measured.rps)}. ` +
      `GC by kind, ours: ${kinds(ours.window)}; (${peer.server}): ${kinds(theirs.window)}.`)
  }
  return lines.join("\n")
}

const kinds = (w: ProbeWindow) =>
  Object.entries(w.gc.byKind).map(([kind, p]) => `${kind} ${p.count} (${p.totalMs.toFixed(0)} ms, max ${p.maxMs.toFixed(1)})`).join(", ") || "none"

const rows: Array<Row> = []
try {
  log(`${operation} ${style}: ours and (${peer.server}), c${concurrencies.join(",")}, ${warmup} s warm-up, ${seconds} s measured`)
  const ours = await launch("ours")
  const theirs = await launch(peer.server)
  for (const concurrency of concurrencies) {
    for (const server of [ours, theirs]) rows.push(await measureOne(server, concurrency))
  }
} finally {
  for (const server of servers) await stop(server.started).catch(() => undefined)
  for (const name of databases) await dropDatabase(serverUrl, name).catch((e) => log(`could not drop ${name}: ${e}`))
  rmSync(scratch, { recursive: true, force: true })
}
console.log(table(rows))
const json = value("json")
if (json !== undefined) writeFileSync(json, JSON.stringify({ operation, style, seconds, warmup, rows }, null, 2))
