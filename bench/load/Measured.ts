import { spawn } from "node:child_process"

/** One measured load: completed requests in the window, failed ones, and latency percentiles. */
export interface Measured {
  readonly requests: number
  readonly errors: number
  readonly seconds: number
  readonly rps: number
  readonly p50Ms: number
  readonly p99Ms: number
  /** The far tail, where the generator gives per-request latencies (bench/tools/tailLatency.ts). */
  readonly p90Ms?: number
  readonly p999Ms?: number
  readonly maxMs?: number
}

export interface Load {
  readonly concurrency: number
  readonly seconds: number
}

export const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

/** p90, p99.9 and max of sorted latencies, for `Measured`'s optional tail. */
export const tail = (sorted: ReadonlyArray<number>) => ({
  p90Ms: percentile(sorted, 90),
  p999Ms: percentile(sorted, 99.9),
  maxMs: sorted.length === 0 ? NaN : sorted[sorted.length - 1]!
})

/** Runs a load generator and answers with what it printed; a non-zero exit is an error. */
export const runTool = (command: string, args: ReadonlyArray<string>): Promise<string> =>
  new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    let err = ""
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()))
    child.once("error", reject)
    child.once("exit", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${command} ${args.join(" ")} exited ${code}:\n${err}${out}`)))
  })

/** Threads for a C load generator: never more than connections, and two cores here. */
export const threadsFor = (concurrency: number) => Math.max(1, Math.min(2, concurrency))
