import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import type { ChildProcess } from "node:child_process"

/** What bench/tools/tailProbe.ts writes at a window's end, times in ms. */
export interface ProbeWindow {
  readonly seconds: number
  readonly eventLoop: { readonly p50Ms: number; readonly p90Ms: number; readonly p99Ms: number; readonly maxMs: number }
  readonly gc: {
    readonly count: number
    readonly totalMs: number
    readonly maxMs: number
    readonly byKind: Readonly<Record<string, { readonly count: number; readonly totalMs: number; readonly maxMs: number }>>
  }
}

const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis))

/**
 * The probe in one server process (this one's, bench/tools/tailProbe.ts, or another answering the
 * same way, such as bench/tools/bytesProbe.ts): `open` before the measured load, `close` after it,
 * each a SIGUSR2 answered by a file of the probe's (waited for, at most `waitMillis`).
 */
export const probe = <Closed = ProbeWindow>(child: ChildProcess, directory: string, waitMillis = 5_000) => {
  let signals = 0
  const signal = async (): Promise<unknown> => {
    const file = join(directory, `probe-${++signals}.json`)
    child.kill("SIGUSR2")
    for (let waited = 0; !existsSync(file); waited += 10) {
      if (waited > waitMillis) throw new Error(`the probe in pid ${child.pid} wrote no ${file}`)
      await sleep(10)
    }
    // The file is written in one call; a read that lands mid-write is retried.
    for (;;) {
      try {
        return JSON.parse(readFileSync(file, "utf8"))
      } catch {
        await sleep(10)
      }
    }
  }
  return { open: async () => void (await signal()), close: () => signal() as Promise<Closed> }
}

/** Max and mean of one gauge over the samples taken. */
export interface Gauge {
  readonly max: number
  readonly mean: number
}

export interface QueueFigures {
  readonly samples: number
  /** onboarding_db_pool_waiting: the gate's queue plus pg-pool's (the process updates it once a second). */
  readonly poolWaiting: Gauge
  /** onboarding_db_work_held: units holding a permit (also updated once a second). */
  readonly workHeld: Gauge
  /** onboarding_calls_in_flight, every label summed: calls inside the process, counted as they come and go. */
  readonly callsInFlight: Gauge
}

const gaugeOf = (values: ReadonlyArray<number>): Gauge => ({
  max: values.length === 0 ? NaN : Math.max(...values),
  mean: values.length === 0 ? NaN : values.reduce((a, b) => a + b, 0) / values.length
})

/** The sum of a metric's lines (every label set) in Prometheus text, or undefined when absent. */
const metric = (text: string, name: string): number | undefined => {
  const values = [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, "gm"))].map((m) => Number(m[1]))
  return values.length === 0 ? undefined : values.reduce((a, b) => a + b, 0)
}

/**
 * Samples our process's `GET /metrics` every `everyMillis` until `stop`, which answers with the
 * gauges' max and mean. /metrics is behind the bearer token when API_TOKEN is set: it is sent then.
 */
export const sampleQueues = (baseUrl: string, everyMillis = 200) => {
  const token = process.env["API_TOKEN"]
  const headers: Record<string, string> = token === undefined || token === "" ? {} : { authorization: `Bearer ${token}` }
  const waiting: Array<number> = []
  const held: Array<number> = []
  const inFlight: Array<number> = []
  let failures = 0
  let running = true
  const loop = (async () => {
    while (running) {
      const next = sleep(everyMillis)
      try {
        const response = await fetch(`${baseUrl}/metrics`, { headers })
        const text = await response.text()
        if (!response.ok) throw new Error(`HTTP ${response.status}`)
        const [w, h, f] = ["onboarding_db_pool_waiting", "onboarding_db_work_held", "onboarding_calls_in_flight"].map((n) => metric(text, n))
        if (w !== undefined) waiting.push(w)
        if (h !== undefined) held.push(h)
        if (f !== undefined) inFlight.push(f)
      } catch {
        failures++
      }
      await next
    }
  })()
  return {
    stop: async (): Promise<QueueFigures & { readonly failures: number }> => {
      running = false
      await loop
      return {
        samples: waiting.length,
        failures,
        poolWaiting: gaugeOf(waiting),
        workHeld: gaugeOf(held),
        callsInFlight: gaugeOf(inFlight)
      }
    }
  }
}
