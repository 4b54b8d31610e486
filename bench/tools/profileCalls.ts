/**
 * Where one call's CPU goes, ours beside its peers: each server is started on a database of its
 * own under `node --cpu-prof`, warmed up, then loaded; only the samples taken while the load was
 * measured are kept (not start-up, warm-up or shutdown), grouped by where the code lives and
 * divided by the calls answered in that window. µs per call, one column per server.
 *
 *   DATABASE_URL=postgres://… node dist/bench/bench/tools/profileCalls.js <Operation> <style> <server>… \
 *     [--seconds=15] [--warmup=10] [--concurrency=64]
 *
 * Servers: ours (the operation's service process), ours-traced (the same with OTLP export to a
 * span-counting sink in this process, every call sampled), and the baselines a, b, d, e, f, g (see
 * docs/benchmarks.md §3); each must serve the style. Profiles are kept in reports/profiles/.
 */
import { randomUUID } from "node:crypto"
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import type { Load, Measured } from "../load/Measured.js"
import { measureLoad } from "../load/measureLoad.js"
import { baselineOf } from "../Baselines.js"
import { freePort, start, type Started, stop } from "../Processes.js"
import { type Operation, operations, type Scenario, scenario, type Seed, serviceOf, type Style, styles } from "../Scenarios.js"
import { dropDatabase, seededDatabase } from "../TempDatabase.js"
import { otlpSink } from "../OtlpSink.js"
import { readProfile } from "./CpuProfile.js"

const root = fileURLToPath(new URL("../../../../", import.meta.url))
const args = process.argv.slice(2)
const option = (name: string, fallback: number) => Number(args.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback)
const [operation, style, ...servers] = args.filter((a) => !a.startsWith("--")) as [Operation, Style, ...Array<string>]
const serverUrl = process.env["DATABASE_URL"] ?? ""
if (!operations.includes(operation) || !styles.includes(style) || servers.length === 0 || serverUrl === "") {
  console.error("usage: DATABASE_URL=… profileCalls <Operation> <style> <ours|ours-traced|a|b|d|e|f|g>… [--seconds=15] [--warmup=10] [--concurrency=64]")
  process.exit(2)
}
const seconds = option("seconds", 15)
const warmup = option("warmup", 10)
const concurrency = option("concurrency", 64)

/**
 * Where a frame's code lives, in the groups docs/benchmarks.md reports. Node's own writes are a
 * group of their own: each response's `writev`, which no server can skip.
 */
const groupOf = (functionName: string, url: string): string => {
  if (functionName === "(idle)") return "idle"
  if (functionName === "(garbage collector)") return "GC"
  if (/^(writev|writeBuffer|writeUtf8String|writeLatin1String|writeGeneric)$/.test(functionName)) return "socket writes"
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1]
  if (pkg === undefined) {
    if (url.startsWith("node:")) return "Node (http, http2, streams, events)"
    if (url.includes("/dist/")) return "the server's own code"
    return "V8 and Node native, unattributed"
  }
  if (pkg === "effect") return "effect (runtime, Schema, data types)"
  if (pkg.startsWith("@effect/sql")) return "@effect/sql, sql-pg"
  if (pkg.startsWith("@effect/")) return "@effect/platform, rpc, opentelemetry"
  if (/^pg(-pool|-protocol|-types)?$/.test(pkg)) return "pg, pg-pool, pg-protocol"
  if (pkg.startsWith("@connectrpc/") || pkg.startsWith("@bufbuild/")) return "connect-es, protobuf-es"
  if (pkg === "graphql") return "graphql-js"
  if (pkg.startsWith("@opentelemetry/")) return "OpenTelemetry SDK"
  return "other packages"
}

const exitHook = join(mkdtempSync(join(tmpdir(), "profile-calls-")), "exitOnSignal.mjs")
// --cpu-prof writes its file when the process exits; SIGUSR2 makes every server exit at once.
writeFileSync(exitHook, `process.on("SIGUSR2", () => process.exit(0))\n`)

const measure = (s: Scenario, url: string, load: Load): Promise<Measured> =>
  measureLoad(s, url, load, tmpdir())

/** One server's µs per call by group, within the measured window. */
const profileOne = async (server: string): Promise<{ readonly groups: Map<string, number>; readonly measured: Measured }> => {
  const seed: Seed = { orgId: randomUUID(), profileId: randomUUID(), licenseId: randomUUID() }
  const database = await seededDatabase(serverUrl, "profile", seed)
  const profileDir = join(root, "reports", "profiles", `${operation}-${style}-${server}-${Date.now()}`)
  mkdirSync(profileDir, { recursive: true })
  let started: Started | undefined
  const traced = server === "ours-traced"
  const sink = traced ? await otlpSink() : undefined
  try {
    const [port, grpcPort] = [await freePort(), await freePort()]
    const env = {
      DATABASE_URL: database.url,
      PORT: String(port),
      GRPC_PORT: String(grpcPort),
      ...(sink === undefined ? {} : { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_TRACES_SAMPLER: "always_on" })
    }
    const ours = server === "ours" || traced
    const baseline = baselineOf(server)
    if (!ours && (baseline === undefined || !baseline.styles.includes(style))) throw new Error(`(${server}) does not serve ${style}`)
    const spawnedAt = performance.now()
    started = await start({
      name: server,
      script: ours ? join(root, `dist/main/${serviceOf[operation]}.js`) : join(root, "dist/bench/bench/baselines", baseline!.script),
      env,
      nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, `--import=${pathToFileURL(exitHook).href}`],
      ...(ours ? { readyUrls: [`http://127.0.0.1:${port}/readyz`] } : {})
    })
    const url = `http://127.0.0.1:${!ours && style === "grpc" ? grpcPort : port}`
    const s = scenario(operation, style, seed)
    await measure(s, url, { concurrency, seconds: warmup })
    const from = (performance.now() - spawnedAt) * 1000
    const measured = await measure(s, url, { concurrency, seconds })
    const to = (performance.now() - spawnedAt) * 1000
    const exited = new Promise((resolve) => started!.child.once("exit", resolve))
    started.child.kill("SIGUSR2")
    await exited
    const file = readdirSync(profileDir).find((f) => f.endsWith(".cpuprofile"))
    if (file === undefined) throw new Error(`no profile written by ${server}`)
    // The profile's clock starts with the process, a few ms after the spawn: close enough for a window of seconds.
    const { byId, samples } = readProfile(join(profileDir, file))
    const groups = new Map<string, number>()
    for (const sample of samples) {
      if (sample.atMicros < from || sample.atMicros > to) continue
      const node = byId.get(sample.id)!
      const group = groupOf(node.callFrame.functionName, node.callFrame.url)
      groups.set(group, (groups.get(group) ?? 0) + sample.micros)
    }
    for (const [group, micros] of groups) groups.set(group, micros / measured.requests)
    return { groups, measured }
  } finally {
    if (started !== undefined) await stop(started)
    await sink?.close()
    await dropDatabase(serverUrl, database.name)
  }
}

const columns: Array<[string, Awaited<ReturnType<typeof profileOne>>]> = []
for (const server of servers) {
  process.stderr.write(`profiling ${server}: ${operation} ${style} c${concurrency}, ${warmup} s warm-up, ${seconds} s measured\n`)
  columns.push([server, await profileOne(server)])
}
const groups = [...new Set(columns.flatMap(([, c]) => [...c.groups.keys()]))]
  .sort((a, b) => Math.max(...columns.map(([, c]) => c.groups.get(b) ?? 0)) - Math.max(...columns.map(([, c]) => c.groups.get(a) ?? 0)))
const busy = (c: Awaited<ReturnType<typeof profileOne>>) =>
  [...c.groups].filter(([g]) => g !== "idle").reduce((sum, [, micros]) => sum + micros, 0)
const lines = [
  `| µs per call (${operation} ${style}, c${concurrency}) | ${columns.map(([s]) => s).join(" | ")} |`,
  `|---|${columns.map(() => "---:").join("|")}|`,
  ...groups.map((g) => `| ${g} | ${columns.map(([, c]) => (c.groups.get(g) ?? 0).toFixed(0)).join(" | ")} |`),
  `| **busy (all but idle)** | ${columns.map(([, c]) => `**${busy(c).toFixed(0)}**`).join(" | ")} |`,
  `| calls/s in the window | ${columns.map(([, c]) => c.measured.rps.toFixed(0)).join(" | ")} |`
]
console.log(lines.join("\n"))
