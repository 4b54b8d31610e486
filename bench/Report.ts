import { cpuRatio, find, floor, handWrittenOf, idiomaticOf, peerLabel, rateRatio } from "./Peers.js"
import type { Results, Server } from "./Results.js"
import { operations, styles } from "./Scenarios.js"
import { beside, limits, rowTarget, targets, workflowCpuStyles } from "./Targets.js"

export type { Cell, ProcessFigures, Results, Server } from "./Results.js"

const num = (value: number | undefined, digits = 0) =>
  value === undefined || Number.isNaN(value) ? "-" : value.toFixed(digits)

const pad = (cells: ReadonlyArray<string>, widths: ReadonlyArray<number>) =>
  "| " + cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(" | ") + " |"

const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>) => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  return [
    pad(header, widths),
    "|" + widths.map((w, i) => (i < 2 ? "-".repeat(w + 2) : "-".repeat(w + 1) + ":")).join("|") + "|",
    ...rows.map((r) => pad(r, widths))
  ].join("\n")
}

const serverTitle: Record<Server, string> = {
  "services-pg": "Services, one process per service, PostgreSQL",
  "services-pg-traced": "Services, the org process with OTLP export configured (every call sampled), PostgreSQL",
  "services-embedded": "Services, all-in-one process, embedded PGlite",
  a: "Baseline (a): node:http + pg",
  b: "Baseline (b): connect-node + pg, no Effect",
  c: "Baseline (c): pgbench, the workflow's statements in one transaction",
  d: "Baseline (d): @effect/platform HttpRouter + @effect/sql-pg, REST, nothing of ours",
  e: "Baseline (e): graphql-js parse/validate/execute over node:http + pg",
  f: "Baseline (f): connect-node + @effect/sql-pg through a ManagedRuntime, nothing of ours",
  g: "Baseline (g): graphql-js over node:http + @effect/sql-pg through a ManagedRuntime, nothing of ours",
  h: "Baseline (h): REST as Effect-TS/examples' http-server writes it, HttpApi + SqlSchema repositories + @effect/sql-pg"
}

const peerNote = "Peer: the minimal Effect service on the same libraries, same run, same statements, same pool, " +
  "nothing of ours (issue 28): (f) for Connect JSON, Connect binary and gRPC in the same style, (d) for REST, " +
  "(g) for GraphQL, every operation the workflow included. \"CPU vs peer\" is the serving process's CPU us per " +
  `call over the peer's (goal <= ${limits.cpu.goal} x, must <= ${limits.cpu.must} x; the workflow over ` +
  `${workflowCpuStyles.join(", ")}: <= ${limits.workflowCpu.goal} x, <= ${limits.workflowCpu.must} x), ` +
  `"calls/s vs peer" ours over the peer's calls/s (goal >= ${limits.rate.goal} x, must >= ${limits.rate.must} x). ` +
  "met?: \"NO\" when a must is missed, \"goal missed\" when only a goal is. Reported beside, not targeted: " +
  "calls/s over the hand-written peer's ((b) for Connect and gRPC, (e) for GraphQL, (a) for REST) and over (a)'s, " +
  "Node's floor, same operation; for REST, CPU us per call and calls/s over (h)'s, the idiomatic Effect service " +
  "(issue 41: HttpApi decoding with the domain's schemas, SqlSchema repositories)."

/**
 * One Markdown table per server: req/s, p50 and p99 (ms) per concurrency, CPU per request; for
 * ours on PostgreSQL the peer, the goal and the must of each row; for a baseline its distance to
 * (a), or to (c) for the workflow.
 */
export const throughputTable = (results: Results, server: Server): string | undefined => {
  // The traced run calls one at a time only.
  const top = server === "services-pg-traced" ? 1 : results.concurrencies.at(-1)!
  const withTargets = server === "services-pg"
  const asCeiling = !["services-pg", "services-pg-traced", "services-embedded", "c"].includes(server)
  const rows: Array<Array<string>> = []
  for (const operation of operations) {
    for (const style of [...styles, "pgbench" as const]) {
      const measured = results.concurrencies.map((c) => find(results, server, operation, style, c)?.measured)
      if (measured.every((m) => m === undefined)) continue
      const row: Array<string> = [operation, style]
      for (const m of measured) row.push(num(m?.rps), num(m?.p50Ms, 1), num(m?.p99Ms, 1))
      if (style !== "pgbench") row.push(num(find(results, server, operation, style, top)?.cpuMicrosPerRequest))
      if (withTargets && style !== "pgbench") {
        const target = rowTarget(results, operation, style, top)
        row.push(peerLabel(target.peer), num(target.cpu, 2), num(target.rate, 2), top === 64 ? target.verdict : "-")
        const idiomatic = idiomaticOf(style)
        row.push(
          idiomatic === undefined ? "-" : num(cpuRatio(results, server, operation, style, idiomatic, top), 2),
          idiomatic === undefined ? "-" : num(rateRatio(results, server, operation, style, idiomatic, top), 2)
        )
        const handWritten = handWrittenOf(style)
        row.push(
          handWritten.server === floor.server ? "-" : num(rateRatio(results, server, operation, style, handWritten, top), 2),
          num(rateRatio(results, server, operation, style, floor, top), 2)
        )
      }
      if (asCeiling) {
        // What a server without our code reaches against Node's floor (a), or PostgreSQL's (c) for the workflow.
        const base = operation === "CreateOnboardingWorkflow" ? { server: "c" as const, style: "pgbench" as const } : { server: "a" as const, style: "rest" as const }
        const theirs = find(results, base.server, operation, base.style, top)?.measured
        const own = measured.at(-1)
        row.push(own === undefined || theirs === undefined ? "-" : `${num(own.rps / theirs.rps, 2)} (${base.server})`)
      }
      rows.push(row)
    }
  }
  if (rows.length === 0) return undefined
  const header = ["operation", "style"]
  for (const c of results.concurrencies) header.push(`c${c} req/s`, `c${c} p50`, `c${c} p99`)
  if (server !== "c") header.push(`CPU us/req c${top}`)
  if (withTargets) {
    header.push(
      "peer",
      `CPU vs peer c${top}`,
      `calls/s vs peer c${top}`,
      "met?",
      `CPU vs (h) c${top}`,
      `calls/s vs (h) c${top}`,
      `calls/s vs hand-written c${top}`,
      `calls/s vs (a) c${top}`
    )
  }
  if (asCeiling) header.push(`vs (a)/(c) c${top}`)
  return `### ${serverTitle[server]}\n\n${table(header, rows)}` + (withTargets ? `\n\n${peerNote}` : "")
}

export const processTable = (results: Results): string =>
  table(
    ["process", "server", "start to ready ms", "idle RSS MB", "peak RSS under load MB", "errors logged"],
    results.processes.map((p) => [
      p.name,
      p.server,
      num(p.readyMillis),
      num((p.idleMiB * 1048576) / 1e6),
      p.loadMiB === undefined ? "not loaded" : num((p.loadMiB * 1048576) / 1e6),
      String(p.errorsLogged)
    ])
  )

/** The hand-written peers and the floors, reported beside the targets and not held to any (docs/benchmarks.md §3). */
const besideSection = (results: Results): Array<string> => {
  const rows = beside(results)
  return rows.length === 0 ? [] : [
    "### Reported beside, not targeted\n\n" +
    "At c64, every operation both served: the lowest ratio of calls/s and the highest of CPU us per call. The " +
    "hand-written peers without Effect ((b) Connect and gRPC, (e) GraphQL), Node's floor (a) (node:http + pg, " +
    "also REST's hand-written peer) and pgbench (c); the minimal Effect peer over the hand-written one is the " +
    "price of Effect itself. For REST, (h), the idiomatic Effect service (Effect-TS/examples' http-server: HttpApi, " +
    "SqlSchema repositories), beside ours and (d).\n\n" +
    table(["compared", "calls/s, ours / theirs", "CPU us per call, ours / theirs"], rows.map((r) => [r.compared, r.rate, r.cpu]))
  ]
}

/** The traced target's further c1 windows, as measured: the figures its ratio is computed from, with the c1 cells. */
const tracedWindowsSection = (results: Results): Array<string> => {
  const windows = results.tracedWindows ?? []
  return windows.length === 0 ? [] : [
    "### Traced against untraced at c1, the further windows\n\n" +
    "After each GetOrg and CreateOrg scenario, the org process untraced and traced, alternated, one window each per " +
    "round; the traced target reads these with the c1 cells above, every call counted once.\n\n" +
    table(
      ["operation", "style", "server", "calls", "CPU us per call"],
      windows.map((w) => [w.operation, w.style, w.server, String(w.requests), (w.cpuMicros / Math.max(1, w.requests)).toFixed(0)])
    )
  ]
}

export const report = (results: Results): string => {
  const sections = (["services-pg", "services-pg-traced", "services-embedded", "d", "h", "f", "g", "a", "b", "c", "e"] as const)
    .map((server) => throughputTable(results, server))
    .filter((s): s is string => s !== undefined)
  return [
    ...sections,
    ...tracedWindowsSection(results),
    "### Processes\n\n" + processTable(results),
    "### Targets\n\n" +
    table(["target", "goal", "must", "met", "figure"], targets(results).map((t) => [t.target, t.goal, t.must, t.verdict, t.detail])),
    ...besideSection(results)
  ].join("\n\n")
}
