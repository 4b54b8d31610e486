import { find, floorRatio, peerLabel } from "./Peers.js"
import type { Results, Server } from "./Results.js"
import { operations, styles } from "./Scenarios.js"
import { rowTarget, targets } from "./Targets.js"

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
  "services-embedded": "Services, all-in-one process, embedded PGlite",
  a: "Baseline (a): node:http + pg",
  b: "Baseline (b): connect-node + pg, no Effect",
  c: "Baseline (c): pgbench, the workflow's statements in one transaction",
  d: "Baseline (d): @effect/platform HttpRouter + @effect/sql-pg, REST, nothing of ours",
  e: "Baseline (e): graphql-js parse/validate/execute over node:http + pg"
}

const peerNote = "Peer: the server a user would write by hand on the same libraries, same run, same statements, " +
  "same pool: (b) for Connect JSON, Connect binary and gRPC in the same style, (d) for REST, (e) for GraphQL. " +
  "CreateOnboardingWorkflow in every style is held to (b)'s workflow: over REST and GraphQL to (b)'s Connect JSON " +
  "one, as (b) serves neither; its must is twice today's rate (bench/Targets.ts), not a ratio. " +
  "\"vs (a)\" is the distance to Node's floor, (a)'s REST server, same operation. " +
  "met?: \"NO\" when the must is missed, \"goal missed\" when only the goal is."

/**
 * One Markdown table per server: req/s, p50 and p99 (ms) per concurrency, CPU per request; for
 * ours on PostgreSQL the peer, the goal and the must of each row; for a baseline its distance to
 * (a), or to (c) for the workflow.
 */
export const throughputTable = (results: Results, server: Server): string | undefined => {
  const top = results.concurrencies.at(-1)!
  const withTargets = server === "services-pg"
  const asCeiling = server === "a" || server === "b" || server === "d" || server === "e"
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
        row.push(peerLabel(target.peer), num(target.ratio, 2), target.goal, target.must, top === 64 ? target.verdict : "-")
        row.push(num(floorRatio(results, server, operation, style, top), 2))
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
  if (withTargets) header.push("peer", `vs peer c${top}`, "goal", "must", "met?", `vs (a) c${top}`)
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

export const report = (results: Results): string => {
  const sections = (["services-pg", "services-embedded", "a", "b", "c", "d", "e"] as const)
    .map((server) => throughputTable(results, server))
    .filter((s): s is string => s !== undefined)
  return [
    ...sections,
    "### Processes\n\n" + processTable(results),
    "### Targets\n\n" +
    table(["target", "goal", "must", "met", "figure"], targets(results).map((t) => [t.target, t.goal, t.must, t.verdict, t.detail]))
  ].join("\n\n")
}
