/**
 * Instructions and bytes per call of one of our processes, counted by callgrind and V8: CPU time on
 * a shared two-core machine moves by more than most single changes, instruction counts do not. The
 * process of the operation's service runs under `valgrind --tool=callgrind --instr-atstart=no` on a
 * database of its own; an operation (--operation: a read, a create with a new id each call, or the
 * workflow, which makes its ids each call) over REST, Connect JSON or binary, GraphQL (HTTP/1.1) or
 * gRPC (HTTP/2) (--style) is called to warm up, then in windows with collection switched on only
 * around each (`callgrind_control -i on|off`, a dump after each). Each window's instructions are
 * split by function into V8's compiler, its garbage collector and the rest, the per-call work: the
 * rest repeats within a few percent between windows once the code is warm, the total does not
 * (compilation and collection land in windows at random). Bytes: what V8 allocated on its heap in
 * the window (bench/tools/bytesProbe.ts, preloaded with `--import`, answers a SIGUSR2 at each
 * window's ends), which repeats where the collector's instructions do not: how much a call
 * allocates, not when the collector runs.
 *
 *   DATABASE_URL=postgres://… node dist/bench/bench/tools/instructionsPerCall.js [--server=ours|a|b|d|e|f|g|h] \
 *     [--operation=GetOrg|…|CreateOnboardingWorkflow] [--style=rest|connect-json|connect-binary|grpc|graphql] \
 *     [--concurrency=1] [--criteria] [--traced] [--warmup=4000] [--calls=300] [--windows=3] [--jobs=1] [--root=DIR]
 *
 * --server, --operation, --style and --concurrency each take a comma-separated list: every
 * combination is a cell, and one process per server and service counts its cells in turn. A table
 * per cell, then, for more than one, ours beside each other server of the same cell (median
 * windows, ours ÷ theirs). --criteria: the criteria's cells (docs/benchmarks.md §3), ours and the
 * peer, at --concurrency (default 1,64): GetOrg, GetProfile and GetLicense over each style, and
 * the workflow over REST and gRPC; REST against (h), GraphQL (g), the others (f).
 *
 * --concurrency: that many calls in flight, each caller on a keep-alive connection of its own (over
 * gRPC, streams of the one HTTP/2 session, as a gRPC client's calls are), so the count includes
 * what a loaded process does per call (its gate's queue, the pool's hand-overs, batched socket
 * reads). --jobs=N: N processes counted at once (2 on two cores: each runs on one under valgrind;
 * counts do not depend on load). --root: the checkout whose build to run, for a before/after pair counted by the same
 * tool (the default: this one).
 *
 * --server: ours (the operation's service process, the default), or a baseline serving the
 * style: (d) REST's minimal Effect peer and (a) Node's floor, (f) Connect JSON's peer, (g)
 * GraphQL's, (h) the idiomatic HttpApi one, (b) and (e) the hand-written ones. --traced (one cell
 * of ours, d, f or g): with OTLP export to a span-counting sink in this process, every call
 * sampled; spans per call printed. Needs valgrind (Debian: valgrind). Node's flags
 * `--no-memory-reducer --interrupt-budget=4096`: under valgrind the process looks idle by the
 * clock, V8's memory reducer then collects and throws optimised code away, and tier-up takes
 * thousands of calls; they change when V8 compiles and collects, not the request path.
 */
import { execFileSync, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { mkdtempSync, readdirSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { baselineOf } from "../Baselines.js"
import { checkCall } from "../Check.js"
import { otlpSink } from "../OtlpSink.js"
import { idiomaticOf, peerOf } from "../Peers.js"
import { freePort } from "../Processes.js"
import { type Operation, operations, scenario, serviceOf, type Style } from "../Scenarios.js"
import { dropDatabase, seededDatabase } from "../TempDatabase.js"
import { split } from "./CallgrindSplit.js"
import { callers } from "./CountedCalls.js"
import { type Cell, type Counted, printCell, printSummary } from "./CountedTables.js"
import { probe } from "./TailSampling.js"

const args = process.argv.slice(2)
const given = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split("=")[1]
const list = (name: string, fallback: string) => (given(name) ?? fallback).split(",")
const option = (name: string, fallback: number) => Number(given(name) ?? fallback)
const root = given("root")?.replace(/\/?$/, "/") ?? fileURLToPath(new URL("../../../../", import.meta.url))
const traced = args.includes("--traced")
const criteria = args.includes("--criteria")
/** The styles this tool calls (gRPC over HTTP/2, the others over HTTP/1.1 keep-alive). */
const callable: ReadonlyArray<Style> = ["rest", "connect-json", "connect-binary", "grpc", "graphql"]
/** The peer a criterion compares ours with: (h) for REST, else the minimal Effect peer (docs/benchmarks.md §3). */
const criterionPeer = (style: Style) => (idiomaticOf(style) ?? peerOf(style)).server
/** Where a server's entry point is and the styles it serves; ours: the operation's service process. */
const entryOf = (server: string, operation: Operation) => {
  const baseline = baselineOf(server)
  return server === "ours"
    ? { script: `dist/main/${serviceOf[operation]}.js`, styles: callable }
    : baseline === undefined
    ? undefined
    : { script: `dist/bench/bench/baselines/${baseline.script}`, styles: baseline.styles.filter((s) => callable.includes(s)) }
}

const concurrencies = list("concurrency", criteria ? "1,64" : "1").map(Number)
const cells: ReadonlyArray<Cell> = criteria
  ? [
    ...["GetOrg", "GetProfile", "GetLicense"].flatMap((operation) =>
      ["connect-json", "connect-binary", "grpc", "graphql", "rest"].map((style) => ({ operation, style }))
    ),
    { operation: "CreateOnboardingWorkflow", style: "rest" },
    { operation: "CreateOnboardingWorkflow", style: "grpc" }
  ].flatMap(({ operation, style }) =>
    ["ours", criterionPeer(style as Style)].flatMap((server) =>
      concurrencies.map((concurrency) => ({ server, operation: operation as Operation, style: style as Style, concurrency }))
    )
  )
  : list("server", "ours").flatMap((server) =>
    list("operation", "GetOrg").flatMap((operation) =>
      list("style", "rest").flatMap((style) =>
        concurrencies.map((concurrency) => ({ server, operation: operation as Operation, style: style as Style, concurrency }))
      )
    )
  )
const warmup = option("warmup", 4000)
const calls = option("calls", 300)
const windows = option("windows", 3)
// Processes counted at once: each runs single-threaded under valgrind, so two use both cores.
const jobs = option("jobs", 1)
const serverUrl = process.env["DATABASE_URL"] ?? ""
if (
  serverUrl === "" || cells.length === 0 ||
  cells.some((c) =>
    !operations.includes(c.operation) || !(c.concurrency >= 1) || entryOf(c.server, c.operation)?.styles.includes(c.style) !== true
  ) ||
  (traced && (cells.length > 1 || !["ours", "d", "f", "g"].includes(cells[0]!.server)))
) {
  console.error(
    `usage: DATABASE_URL=… instructionsPerCall [--server=ours|a|b|d|e|f|g|h] [--operation=${operations.join("|")}] ` +
      "[--style=rest|connect-json|connect-binary|grpc|graphql] [--concurrency=1] [--criteria] [--traced] " +
      "[--warmup=4000] [--calls=300] [--windows=3] [--jobs=1] [--root=DIR] " +
      "(each a comma-separated list but --root; a server serving the style; --traced for one cell of ours, d, f, g)"
  )
  process.exit(2)
}

const counted: Array<Counted> = []
const probeModule = pathToFileURL(fileURLToPath(new URL("./bytesProbe.js", import.meta.url))).href
const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis))
const seed = { orgId: randomUUID(), profileId: randomUUID(), licenseId: randomUUID() }
const database = await seededDatabase(serverUrl, "instructions", seed)
const sink = traced ? await otlpSink() : undefined
const outDir = mkdtempSync(join(tmpdir(), "instructions-"))
/** One process under callgrind counts each cell of its server (ours: of its service) in turn. */
const countIn = async (inProcess: ReadonlyArray<Cell>) => {
  const probeDir = mkdtempSync(join(outDir, "probe-"))
  const [port, grpcPort] = [await freePort(), await freePort()]
  const child = spawn("valgrind", [
    "--tool=callgrind",
    "--instr-atstart=no",
    `--callgrind-out-file=${join(outDir, "callgrind.out.%p")}`,
    process.execPath,
    "--no-memory-reducer",
    "--interrupt-budget=4096",
    `--import=${probeModule}`,
    join(root, entryOf(inProcess[0]!.server, inProcess[0]!.operation)!.script)
  ], {
    env: {
      ...process.env,
      DATABASE_URL: database.url,
      PORT: String(port),
      // (f) also serves gRPC, on a port of its own.
      GRPC_PORT: String(grpcPort),
      LOG_FORMAT: "json",
      // Ours: under valgrind on a busy machine a queued workflow at c64 waits past the default
      // budget of 10 s, and a first connection can take more than 3 s.
      DATABASE_OPERATION_TIMEOUT_MS: "600000",
      DATABASE_CONNECT_TIMEOUT_MS: "60000",
      BYTES_PROBE_DIR: probeDir,
      ...(sink === undefined ? {} : { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_TRACES_SAMPLER: "always_on" })
    },
    stdio: ["ignore", "ignore", "inherit"]
  })
  const pid = String(child.pid)
  // Ended: exited, or killed by a signal (then exitCode stays null).
  const ended = () => child.exitCode !== null || child.signalCode !== null
  // Under valgrind the probe answers its signal slowly.
  const bytes = probe<{ readonly bytes: number }>(child, probeDir, 60_000)
  try {
    for (const cell of inProcess) {
      const base = `http://127.0.0.1:${cell.server !== "ours" && cell.style === "grpc" ? grpcPort : port}`
      const s = scenario(cell.operation, cell.style, seed)
      const c = callers(base, s, cell.concurrency)
      const cellDumps: Array<{ readonly file: string; readonly bytes: number }> = []
      try {
        // Ready when the call itself answers (the baselines have no /readyz), each try on a connection
        // of its own (CountedCalls' ready says why): one taken but never answered is given up after
        // 5 s, and the next try given twice as long, up to 60 s (a first call under valgrind, cold, can take many
        // seconds); 10 min in all.
        const since = Date.now()
        for (let millis = 5_000;;) {
          const tried = Date.now()
          if (await c.ready(millis)) break
          if (ended() || Date.now() - since > 600_000) throw new Error("the process under valgrind did not become ready")
          if (Date.now() - tried >= millis) millis = Math.min(2 * millis, 60_000)
          await sleep(500)
        }
        process.stderr.write(`${cell.server} ${cell.operation} over ${cell.style} c${cell.concurrency}: warming up, ${warmup} calls\n`)
        await checkCall(s, base)
        await c.callMany(warmup)
        for (let window = 1; window <= windows; window++) {
          await bytes.open()
          execFileSync("callgrind_control", ["-i", "on", pid], { stdio: "ignore" })
          await c.callMany(calls)
          execFileSync("callgrind_control", ["-i", "off", pid], { stdio: "ignore" })
          const closed = await bytes.close()
          execFileSync("callgrind_control", ["-d", pid], { stdio: "ignore" })
          // callgrind.out.<pid>.<n>, one per dump; the file without <n> is written at exit, with nothing counted.
          const file = readdirSync(outDir).filter((f) => f.startsWith(`callgrind.out.${pid}.`))
            .sort((a, b) => Number(a.split(".").at(-1)) - Number(b.split(".").at(-1))).at(-1)!
          cellDumps.push({ file, bytes: closed.bytes })
          // Between windows, uncounted: what a window left for later (a collection) lands here, not in the next.
          await c.callMany(calls)
        }
        // Split and printed now, while the server idles: a run stopped early keeps the cells it counted.
        const counts = cellDumps.map(({ bytes, file }) => {
          const sums = split(join(outDir, file))
          return { rest: sums.rest / calls / 1e6, compiler: sums.compiler / calls / 1e6, gc: sums.gc / calls / 1e6, total: sums.total / calls / 1e6, bytes: bytes / calls }
        })
        counted.push({ cell, windows: counts })
        printCell({ cell, windows: counts }, traced)
      } catch (error) {
        // A cell refused (a call failed) is reported, and the process's next cells still counted from zero.
        if (ended()) throw error
        execFileSync("callgrind_control", ["-i", "off", pid], { stdio: "ignore" })
        execFileSync("callgrind_control", ["-z", pid], { stdio: "ignore" })
        console.log(`\n${cell.server} ${cell.operation} over ${cell.style} c${cell.concurrency}: not counted, ${String(error)}`)
      } finally {
        c.close()
      }
    }
  } finally {
    // An ended child has fired its "exit" already: waited for, it would leave nothing to wake this process.
    if (!ended()) {
      child.kill("SIGTERM")
      await new Promise((resolve) => child.once("exit", resolve))
    }
  }
}

const started = Date.now()
try {
  // A process per server and service (a peer serves them all, but split so the jobs even out), the
  // one with the most cells first.
  const processOf = (cell: Cell) => `${cell.server} ${serviceOf[cell.operation]}`
  const cellsOf = (key: string) => cells.filter((cell) => processOf(cell) === key)
  const queue = [...new Set(cells.map(processOf))].sort((a, b) => cellsOf(b).length - cellsOf(a).length)
  const worker = async (): Promise<void> => {
    for (let key = queue.shift(); key !== undefined; key = queue.shift()) await countIn(cellsOf(key))
  }
  await Promise.all(Array.from({ length: Math.max(1, jobs) }, worker))
  if (cells.length > 1) printSummary(counted)
  console.log(`\n${cells.length} cells counted in ${((Date.now() - started) / 60_000).toFixed(1)} min`)
  if (sink !== undefined) {
    // Every call made, the checks and warm-up included (the exporter's last batch is flushed at exit).
    const made = 1 + 1 + warmup + 2 * windows * calls
    console.log(`\n${sink.spans()} spans received, ${(sink.spans() / made).toFixed(2)} per call (${made} calls)`)
  }
} finally {
  await sink?.close()
  await dropDatabase(serverUrl, database.name)
}
