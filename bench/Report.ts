import type { Measured } from "./load/Measured.js"
import { type Operation, operations, type Style, styles } from "./Scenarios.js"

/** Who served a measured cell: the services (per database mode) or one of the baselines. */
export type Server = "services-pg" | "services-embedded" | "a" | "b" | "c" | "d"

export interface Cell {
  readonly server: Server
  readonly operation: Operation
  readonly style: Style | "pgbench"
  readonly concurrency: number
  readonly measured: Measured
  /** The serving process's CPU time per completed request, in microseconds (not for pgbench). */
  readonly cpuMicrosPerRequest?: number
}

export interface ProcessFigures {
  readonly server: Server
  readonly name: string
  readonly readyMillis: number
  readonly idleMiB: number
  readonly loadMiB: number
  readonly errorsLogged: number
}

export interface Results {
  readonly cells: ReadonlyArray<Cell>
  readonly processes: ReadonlyArray<ProcessFigures>
  readonly concurrencies: ReadonlyArray<number>
}

const find = (results: Results, server: Server, operation: Operation, style: Cell["style"], concurrency: number) =>
  results.cells.find((c) =>
    c.server === server && c.operation === operation && c.style === style && c.concurrency === concurrency
  )?.measured

/** The baseline a style of ours is compared with (design of issue 6): (a) for HTTP/JSON, (b) for protobuf. */
export const baselineOf = (operation: Operation, style: Style): { server: Server; style: Cell["style"] } =>
  operation === "CreateOnboardingWorkflow"
    ? { server: "c", style: "pgbench" }
    : style === "grpc" || style === "connect-binary"
    ? { server: "b", style }
    : { server: "a", style: "rest" }

export const ratio = (results: Results, server: Server, operation: Operation, style: Style, concurrency: number) => {
  const ours = find(results, server, operation, style, concurrency)
  const base = baselineOf(operation, style)
  const theirs = find(results, base.server, operation, base.style, concurrency)
  return ours === undefined || theirs === undefined ? undefined : ours.rps / theirs.rps
}

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
  d: "Baseline (d): @effect/platform HttpRouter + @effect/sql-pg, REST, nothing of ours"
}

/** One Markdown table per server: req/s, p50 and p99 (ms) per concurrency, and the ratio to its baseline. */
export const throughputTable = (results: Results, server: Server): string | undefined => {
  const withRatio = server === "services-pg"
  const asCeiling = server === "a" || server === "b" || server === "d"
  const rows: Array<Array<string>> = []
  for (const operation of operations) {
    for (const style of [...styles, "pgbench" as const]) {
      const measured = results.concurrencies.map((c) => find(results, server, operation, style, c))
      if (measured.every((m) => m === undefined)) continue
      const row: Array<string> = [operation, style]
      for (const m of measured) row.push(num(m?.rps), num(m?.p50Ms, 1), num(m?.p99Ms, 1))
      const top = results.concurrencies.at(-1)!
      if (style !== "pgbench") {
        row.push(num(results.cells.find((c) =>
          c.server === server && c.operation === operation && c.style === style && c.concurrency === top
        )?.cpuMicrosPerRequest))
      }
      if (withRatio && style !== "pgbench") {
        const base = baselineOf(operation, style)
        row.push(`${num(ratio(results, server, operation, style, top), 2)} (${base.server})`)
      }
      if (asCeiling) {
        // What a server without our code reaches against the baseline ours is held to (a or c).
        const base = operation === "CreateOnboardingWorkflow" ? { server: "c" as const, style: "pgbench" as const } : { server: "a" as const, style: "rest" as const }
        const theirs = find(results, base.server, operation, base.style, top)
        const own = measured.at(-1)
        row.push(own === undefined || theirs === undefined ? "-" : `${num(own.rps / theirs.rps, 2)} (${base.server})`)
      }
      rows.push(row)
    }
  }
  if (rows.length === 0) return undefined
  const header = ["operation", "style"]
  for (const c of results.concurrencies) header.push(`c${c} req/s`, `c${c} p50`, `c${c} p99`)
  if (server !== "c") header.push(`CPU us/req c${results.concurrencies.at(-1)}`)
  if (withRatio) header.push(`ratio c${results.concurrencies.at(-1)}`)
  if (asCeiling) header.push(`vs (a)/(c) c${results.concurrencies.at(-1)}`)
  return `### ${serverTitle[server]}\n\n${table(header, rows)}`
}

export const processTable = (results: Results): string =>
  table(
    ["process", "server", "start to ready ms", "idle RSS MB", "peak RSS under load MB", "errors logged"],
    results.processes.map((p) => [
      p.name,
      p.server,
      num(p.readyMillis),
      num((p.idleMiB * 1048576) / 1e6),
      num((p.loadMiB * 1048576) / 1e6),
      String(p.errorsLogged)
    ])
  )

/** The targets, each with the figure that decides it. */
export const targets = (results: Results): ReadonlyArray<{ readonly target: string; readonly ok: boolean; readonly detail: string }> => {
  const top = 64
  const checks: Array<{ target: string; ok: boolean; detail: string }> = []
  const ratioCheck = (name: string, ops: ReadonlyArray<Operation>, style: Style, min: number) => {
    const values = ops.map((op) => [op, ratio(results, "services-pg", op, style, top)] as const)
    const measured = values.filter(([, r]) => r !== undefined) as Array<readonly [Operation, number]>
    if (measured.length === 0) return
    const worst = measured.reduce((a, b) => (b[1] < a[1] ? b : a))
    checks.push({
      target: `${name} >= ${min} of its baseline at c${top}`,
      ok: worst[1] >= min,
      detail: `lowest ${worst[1].toFixed(2)} (${worst[0]})`
    })
  }
  const resources = operations.filter((op) => op !== "CreateOnboardingWorkflow")
  ratioCheck("Connect JSON create/get", resources, "connect-json", 0.8)
  ratioCheck("REST create/get", resources, "rest", 0.8)
  ratioCheck("gRPC create/get (vs b's gRPC)", resources, "grpc", 0.8)
  ratioCheck("GraphQL create/get", resources, "graphql", 0.6)
  for (const style of styles) ratioCheck(`Workflow over ${style} (vs pgbench tps)`, ["CreateOnboardingWorkflow"], style, 0.6)
  const c16 = results.cells.filter((c) => c.server === "services-pg" && c.concurrency === 16)
  if (c16.length > 0) {
    const worst = c16.reduce((a, b) => (b.measured.p99Ms > a.measured.p99Ms ? b : a))
    checks.push({
      target: "p99 at c16 < 20 ms, every operation and style",
      ok: worst.measured.p99Ms < 20,
      detail: `highest ${worst.measured.p99Ms.toFixed(1)} ms (${worst.operation} ${worst.style})`
    })
  }
  const ours = results.processes.filter((p) => p.server === "services-pg")
  if (ours.length > 0) {
    const worst = ours.reduce((a, b) => (b.idleMiB > a.idleMiB ? b : a))
    const mb = (worst.idleMiB * 1048576) / 1e6
    checks.push({ target: "idle RSS per process < 150 MB", ok: mb < 150, detail: `highest ${mb.toFixed(0)} MB (${worst.name})` })
  }
  const logged = results.processes.filter((p) => p.errorsLogged > 0)
  checks.push({
    target: "no errors logged by the services",
    ok: logged.length === 0,
    detail: logged.length === 0 ? "0 logged" : logged.map((p) => `${p.name}: ${p.errorsLogged}`).join("; ")
  })
  const failures = results.cells.filter((c) => c.measured.errors > 0)
  checks.push({
    target: "no failed requests under load",
    ok: failures.length === 0,
    detail: failures.length === 0
      ? "0 failed"
      : failures.map((c) => `${c.server} ${c.operation} ${c.style} c${c.concurrency}: ${c.measured.errors}`).join("; ")
  })
  return checks
}

export const report = (results: Results): string => {
  const sections = (["services-pg", "services-embedded", "a", "b", "c", "d"] as const)
    .map((server) => throughputTable(results, server))
    .filter((s): s is string => s !== undefined)
  const checks = targets(results)
  return [
    ...sections,
    "### Processes\n\n" + processTable(results),
    "### Targets\n\n" + table(["target", "met", "figure"], checks.map((c) => [c.target, c.ok ? "yes" : "NO", c.detail]))
  ].join("\n\n")
}
