/**
 * Instructions per call of one of our processes, counted by callgrind: CPU time on a shared
 * two-core machine moves by more than most single changes, instruction counts do not. The
 * process of the operation's service runs under `valgrind --tool=callgrind --instr-atstart=no` on a
 * database of its own; an operation (--operation: a read, or a create with a new id each call) over REST, Connect
 * JSON or binary, GraphQL (HTTP/1.1) or gRPC (HTTP/2) (--style) is called one call at a time over
 * one keep-alive connection (one HTTP/2 session for gRPC) to warm up, then in windows with
 * collection switched on only around each (`callgrind_control -i on|off`, a dump after each).
 * Each window's instructions are split by function into V8's compiler, its garbage collector and
 * the rest, the per-call work: the rest repeats within a few percent between windows once the code
 * is warm, the total does not (compilation and collection land in windows at random).
 *
 *   DATABASE_URL=postgres://… node dist/bench/bench/tools/instructionsPerCall.js [--server=ours|a|b|d|e|f|g|h] \
 *     [--operation=GetOrg|GetProfile|GetLicense|CreateOrg|CreateProfile|CreateLicense] [--style=rest|connect-json|connect-binary|grpc|graphql] [--traced] \
 *     [--warmup=4000] [--calls=300] [--windows=3] [--concurrency=1] [--root=DIR]
 *
 * --concurrency: that many calls in flight, each caller on a keep-alive connection of its own (over
 * gRPC, streams of the one HTTP/2 session, as a gRPC client's calls are), so
 * the count includes what a loaded process does per call (its gate's queue, the pool's hand-overs,
 * batched socket reads). --root: the checkout whose build to run, for a before/after pair counted by
 * the same tool (the default: this one).
 *
 * --server: ours (the operation's service process, the default), or a baseline serving the
 * style: (d) REST's minimal Effect peer and (a) Node's floor, (f) Connect JSON's peer, (g)
 * GraphQL's, (b) and (e) the hand-written ones. --traced (ours and the Effect peers d, f, g): with
 * OTLP export to a span-counting sink in this process, every call sampled; spans per call printed. Needs
 * valgrind (Debian: valgrind). Node's flags `--no-memory-reducer --interrupt-budget=4096`: under
 * valgrind the process looks idle by the clock, V8's memory reducer then collects and throws
 * optimised code away, and tier-up takes thousands of calls; they change when V8 compiles and
 * collects, not the request path.
 */
import { execFileSync, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { mkdtempSync, readdirSync } from "node:fs"
import * as http from "node:http"
import * as http2 from "node:http2"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { otlpSink } from "../OtlpSink.js"
import { baselineOf } from "../Baselines.js"
import { checkCall } from "../Check.js"
import { freePort } from "../Processes.js"
import { type Operation, operations, type Scenario, scenario, serviceOf, type Style, withId } from "../Scenarios.js"
import { dropDatabase, seededDatabase } from "../TempDatabase.js"

const args = process.argv.slice(2)
const option = (name: string, fallback: number) => Number(args.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback)
const root = args.find((a) => a.startsWith("--root="))?.split("=")[1]?.replace(/\/?$/, "/") ??
  fileURLToPath(new URL("../../../../", import.meta.url))
const traced = args.includes("--traced")
const server = args.find((a) => a.startsWith("--server="))?.split("=")[1] ?? "ours"
const style = (args.find((a) => a.startsWith("--style="))?.split("=")[1] ?? "rest") as Style
/**
 * The operations this tool calls, all but the workflow: a read answers the same row again and
 * again, a create makes a row of a new id each call (a scenario with `freshId`), so every call
 * does the same work.
 */
const countable = operations.filter((op) => serviceOf[op] !== "workflow")
const operation = (args.find((a) => a.startsWith("--operation="))?.split("=")[1] ?? "GetOrg") as Operation
/** The styles this tool calls (gRPC over HTTP/2, the others over HTTP/1.1 keep-alive), and where the server's entry point is. */
const callable: ReadonlyArray<Style> = ["rest", "connect-json", "connect-binary", "grpc", "graphql"]
const baseline = baselineOf(server)
const entry = server === "ours"
  ? { script: `dist/main/${serviceOf[operation]}.js`, styles: callable }
  : baseline === undefined
  ? undefined
  : { script: `dist/bench/bench/baselines/${baseline.script}`, styles: baseline.styles.filter((s) => callable.includes(s)) }
const warmup = option("warmup", 4000)
const calls = option("calls", 300)
const windows = option("windows", 3)
const concurrency = option("concurrency", 1)
const serverUrl = process.env["DATABASE_URL"] ?? ""
if (
  serverUrl === "" || entry === undefined || !entry.styles.includes(style) || !countable.includes(operation) ||
  (traced && !["ours", "d", "f", "g"].includes(server))
) {
  console.error(
    `usage: DATABASE_URL=… instructionsPerCall [--server=ours|a|b|d|e|f|g|h] [--operation=${countable.join("|")}] ` +
      "[--style=rest|connect-json|connect-binary|grpc|graphql] [--traced] " +
      "[--warmup=4000] [--calls=300] [--windows=3] [--concurrency=1] [--root=DIR] (a server serving the style; --traced for ours, d, f, g)"
  )
  process.exit(2)
}

/** Where an instruction was spent, by the function's name as callgrind_annotate prints it. */
const compiler = /compiler::|maglev|baseline::|Compiler::|Parser|Bytecode|interpreter::|turboshaft|OptimizingCompile|CodeGenerator|Assembler|RegisterAllocat|Scanner|Ast|Zone|Compile|Deoptimiz|FeedbackMetadata|ScopeInfo|Scope::|Rewriter|Typer|Graph|Schedule|InstructionSelector|LiveRange|MoveOptimizer|JumpThreading|Frame/
const collector = /Heap::|heap::|Scavenge|MarkCompact|Sweep|GCTracer|Marking|Marker|Evacuat|MemoryAllocator|PagedSpace|MinorMC|Worklist|MemoryChunk|LargeObject|NewSpace|SemiSpace|RememberedSet|SlotSet|ObjectVisitor|Visitor|Collector|IncrementalMarking|Compactor|Weak/

const split = (file: string) => {
  const text = execFileSync("callgrind_annotate", ["--inclusive=no", "--threshold=100", file], { encoding: "utf8", maxBuffer: 1 << 28 })
  const sums = { total: 0, compiler: 0, gc: 0, rest: 0 }
  for (const line of text.split("\n")) {
    const match = /^\s*([\d,]+)\s+\([^)]*\)\s+(.*:.*)$/.exec(line)
    if (match === null || line.includes("PROGRAM TOTALS")) continue
    const ir = Number(match[1]!.replace(/,/g, ""))
    const name = match[2]!
    sums.total += ir
    if (compiler.test(name)) sums.compiler += ir
    else if (collector.test(name)) sums.gc += ir
    else sums.rest += ir
  }
  return sums
}

const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency })
/** One call of the scenario; a GraphQL error arrives with 200 and is not looked for: the call is checked once before. */
const call = (base: string, s: Scenario) => {
  const made = s.freshId ? withId(s, randomUUID()) : s
  return made.style === "grpc" ? callHttp2(base, made) : callHttp1(base, made)
}
const callHttp1 = (base: string, s: Scenario) =>
  new Promise<void>((resolve, reject) => {
    const request = http.request(`${base}${s.path}`, { agent, method: s.method, headers: s.headers }, (response) => {
      response.resume()
      response.on("end", () => (response.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${response.statusCode}`))))
    })
    request.on("error", reject)
    request.end(s.method === "GET" ? undefined : s.body)
  })
/** gRPC's calls share one HTTP/2 session, as a gRPC client's do (a new one when it failed: the server not yet up). */
let session: http2.ClientHttp2Session | undefined
const callHttp2 = (base: string, s: Scenario) =>
  new Promise<void>((resolve, reject) => {
    if (session === undefined || session.destroyed || session.closed) {
      session = http2.connect(base)
      session.on("error", () => undefined)
    }
    const stream = session.request({ ":method": s.method, ":path": s.path, ...s.headers })
    let status: number | undefined
    let grpcStatus: unknown
    stream.on("response", (headers) => {
      status = headers[":status"]
      grpcStatus = headers["grpc-status"]
    })
    stream.on("trailers", (trailers) => (grpcStatus = trailers["grpc-status"]))
    stream.resume()
    stream.on("end", () => (status === 200 && grpcStatus === "0" ? resolve() : reject(new Error(`HTTP ${status}, grpc-status ${String(grpcStatus)}`))))
    stream.on("error", reject)
    stream.end(s.body)
  })
/** `n` calls, `concurrency` at a time. */
const callMany = async (base: string, s: Scenario, n: number) => {
  let left = n
  const caller = async () => {
    while (left > 0) {
      left--
      await call(base, s)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, caller))
}
const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis))

const seed = { orgId: randomUUID(), profileId: randomUUID(), licenseId: randomUUID() }
const database = await seededDatabase(serverUrl, "instructions", seed)
const sink = traced ? await otlpSink() : undefined
const outDir = mkdtempSync(join(tmpdir(), "instructions-"))
try {
  const [port, grpcPort] = [await freePort(), await freePort()]
  const child = spawn("valgrind", [
    "--tool=callgrind",
    "--instr-atstart=no",
    `--callgrind-out-file=${join(outDir, "callgrind.out.%p")}`,
    process.execPath,
    "--no-memory-reducer",
    "--interrupt-budget=4096",
    join(root, entry.script)
  ], {
    env: {
      ...process.env,
      DATABASE_URL: database.url,
      PORT: String(port),
      // (f) also serves gRPC, on a port of its own.
      GRPC_PORT: String(grpcPort),
      LOG_FORMAT: "json",
      ...(sink === undefined ? {} : { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_TRACES_SAMPLER: "always_on" })
    },
    stdio: ["ignore", "ignore", "inherit"]
  })
  try {
    const base = `http://127.0.0.1:${server !== "ours" && style === "grpc" ? grpcPort : port}`
    const s = scenario(operation, style, seed)
    // Ready when the call itself answers (the baselines have no /readyz).
    for (let waited = 0; !(await call(base, s).then(() => true, () => false)); waited++) {
      if (child.exitCode !== null || waited > 600) throw new Error("the process under valgrind did not become ready")
      await sleep(500)
    }
    const pid = String(child.pid)
    process.stderr.write(`warming up: ${warmup} calls\n`)
    await checkCall(s, base)
    await callMany(base, s, warmup)
    for (let window = 1; window <= windows; window++) {
      execFileSync("callgrind_control", ["-i", "on", pid], { stdio: "ignore" })
      await callMany(base, s, calls)
      execFileSync("callgrind_control", ["-i", "off", pid], { stdio: "ignore" })
      execFileSync("callgrind_control", ["-d", pid], { stdio: "ignore" })
      // Between windows, uncounted: what a window left for later (a collection) lands here, not in the next.
      await callMany(base, s, calls)
    }
  } finally {
    agent.destroy()
    session?.close()
    child.kill("SIGTERM")
    await new Promise((resolve) => child.once("exit", resolve))
  }
  // callgrind.out.<pid>.<n>, one per window; the file without <n> is written at exit, with nothing counted.
  const dumps = readdirSync(outDir).filter((f) => /\.\d+\.\d+$/.test(f))
    .sort((a, b) => Number(a.split(".").at(-1)) - Number(b.split(".").at(-1)))
  const per = (ir: number) => (ir / calls / 1e6).toFixed(3)
  console.log(`| window (${server}, ${traced ? "traced" : "untraced"}, ${operation} over ${style}, c${concurrency}) | rest | V8 compiler | GC | total |`)
  console.log("|---|---:|---:|---:|---:|")
  for (const [i, file] of dumps.entries()) {
    const sums = split(join(outDir, file))
    console.log(`| ${i + 1} | ${per(sums.rest)} M | ${per(sums.compiler)} M | ${per(sums.gc)} M | ${per(sums.total)} M |`)
  }
  if (sink !== undefined) {
    // Every call made, the checks and warm-up included (the exporter's last batch is flushed at exit).
    const made = 1 + 1 + warmup + 2 * windows * calls
    console.log(`\n${sink.spans()} spans received, ${(sink.spans() / made).toFixed(2)} per call (${made} calls)`)
  }
} finally {
  await sink?.close()
  await dropDatabase(serverUrl, database.name)
}
