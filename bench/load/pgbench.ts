import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { type Load, type Measured, percentile, runTool, threadsFor } from "./Measured.js"

/**
 * Baseline (c): PostgreSQL running the workflow's transaction on its own, from pgbench with one
 * connection per unit of concurrency and prepared statements; latencies from its per-transaction log.
 */
export const pgbench = async (script: string, databaseUrl: string, load: Load, scratch: string): Promise<Measured> => {
  const file = join(scratch, "workflow.pgbench.sql")
  writeFileSync(file, script)
  const logs = mkdtempSync(join(scratch, `pgbench-${load.concurrency}-`))
  const out = await runTool("pgbench", [
    "-n",
    "-M",
    "prepared",
    `-c${load.concurrency}`,
    `-j${threadsFor(load.concurrency)}`,
    // pgbench takes whole seconds.
    `-T${Math.max(1, Math.round(load.seconds))}`,
    "-f",
    file,
    "-l",
    `--log-prefix=${join(logs, "tx")}`,
    databaseUrl
  ])
  const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(out)
  const processed = /number of transactions actually processed: (\d+)/.exec(out)
  const failed = /number of failed transactions: (\d+)/.exec(out)
  if (tps === null || processed === null) throw new Error(`pgbench printed no summary:\n${out}`)
  // Log lines: client, transaction, latency in microseconds, script, epoch seconds, microseconds.
  const latencies = readdirSync(logs)
    .flatMap((name) => readFileSync(join(logs, name), "utf8").trim().split("\n"))
    .filter((line) => line !== "")
    .map((line) => Number(line.split(" ")[2]) / 1e3)
    .sort((a, b) => a - b)
  return {
    requests: Number(processed[1]),
    errors: failed === null ? 0 : Number(failed[1]),
    seconds: load.seconds,
    rps: Number(tps[1]),
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99)
  }
}
