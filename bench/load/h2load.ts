import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { Scenario } from "../Scenarios.js"
import { type Load, type Measured, percentile, runTool, tail, threadsFor } from "./Measured.js"

/**
 * gRPC clients multiplex: the same connection count for every server measured, with the rest of
 * the concurrency as streams on them.
 */
export const grpcConnections = (concurrency: number) => Math.min(concurrency, 4)

/**
 * h2load (HTTP/2 with prior knowledge) sends one fixed body, so it serves the calls whose body
 * need not change: reads and the workflow (whose ids the service makes). Latencies come from its
 * per-request log; gRPC failures (HTTP 200 with a grpc-status trailer) are ruled out beforehand by
 * the checked call, and the log's HTTP status catches the rest.
 */
export const h2load = async (scenario: Scenario, baseUrl: string, load: Load, scratch: string): Promise<Measured> => {
  if (scenario.freshId) throw new Error(`h2load cannot vary the body of ${scenario.operation}`)
  const body = join(scratch, `${scenario.operation}-${scenario.style}.bin`)
  const log = join(scratch, `${scenario.operation}-${scenario.style}-${load.concurrency}.log`)
  writeFileSync(body, scenario.body)
  writeFileSync(log, "")
  const connections = grpcConnections(load.concurrency)
  const out = await runTool("h2load", [
    `-c${connections}`,
    `-m${Math.ceil(load.concurrency / connections)}`,
    `-t${threadsFor(connections)}`,
    `-D${Math.round(load.seconds * 1000)}ms`,
    ...Object.entries(scenario.headers).flatMap(([k, v]) => ["-H", `${k}: ${v}`]),
    "-d",
    body,
    `--log-file=${log}`,
    `${baseUrl}${scenario.path}`
  ])
  const finished = /finished in ([\d.]+)(m?s), ([\d.]+) req\/s/.exec(out)
  const counts = /requests: (\d+) total, \d+ started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored/.exec(out)
  if (finished === null || counts === null) throw new Error(`h2load printed no summary:\n${out}`)
  // Status 0: still in flight when the window closed, neither a failure nor a latency.
  const rows = readFileSync(log, "utf8").trim().split("\n").filter((l) => l !== "").map((l) => l.split("\t"))
    .filter((r) => r[1] !== "0")
  const latencies = rows.map((r) => Number(r[2]) / 1e3).sort((a, b) => a - b)
  const seconds = Number(finished[1]) / (finished[2] === "ms" ? 1e3 : 1)
  return {
    requests: Number(counts[2]),
    // h2load's "failed" already counts the errored requests and every non-2xx answer.
    errors: Number(counts[4]),
    seconds,
    rps: Number(finished[3]),
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    ...tail(latencies)
  }
}
