/**
 * A preload for bench/tools/tailLatency.ts, in the server measured (ours or a peer), nothing of
 * the server changed: `node --import=<file URL of dist/bench/bench/tools/tailProbe.js> <server>`
 * with TAIL_PROBE_DIR set. Each SIGUSR2 answers with a file `<TAIL_PROBE_DIR>/probe-<n>.json`: an
 * odd one opens a window (the event-loop delay histogram, resolution 1 ms, reset and enabled; GC
 * pauses counted from then on), an even one closes it and writes what the window saw: event-loop
 * delay p50/p90/p99/max and GC pauses (count, total and longest, by kind), times in ms. Outside a
 * window the histogram is disabled, so an idle server pays nothing for its 1 ms timer.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { constants, monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks"

const directory = process.env["TAIL_PROBE_DIR"]

const kinds: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: "minor",
  [constants.NODE_PERFORMANCE_GC_MAJOR]: "major",
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental",
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: "weakcb"
}

interface Pauses {
  count: number
  totalMs: number
  maxMs: number
}

if (directory !== undefined && directory !== "") {
  const delay = monitorEventLoopDelay({ resolution: 1 })
  let signals = 0
  let from = 0
  let to = Number.POSITIVE_INFINITY
  const pauses: Array<{ readonly at: number; readonly ms: number; readonly kind: string }> = []
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.startTime < from || entry.startTime > to) continue
      const kind = (entry as { readonly detail?: { readonly kind?: number } }).detail?.kind ?? -1
      pauses.push({ at: entry.startTime, ms: entry.duration, kind: kinds[kind] ?? String(kind) })
    }
  }).observe({ entryTypes: ["gc"] })

  const write = (n: number, body: unknown) => writeFileSync(join(directory, `probe-${n}.json`), JSON.stringify(body))
  const ms = (nanos: number) => (Number.isFinite(nanos) ? nanos / 1e6 : 0)

  process.on("SIGUSR2", () => {
    const n = ++signals
    if (n % 2 === 1) {
      pauses.length = 0
      from = performance.now()
      to = Number.POSITIVE_INFINITY
      delay.reset()
      delay.enable()
      write(n, { opened: true })
      return
    }
    to = performance.now()
    delay.disable()
    const eventLoop = {
      p50Ms: ms(delay.percentile(50)),
      p90Ms: ms(delay.percentile(90)),
      p99Ms: ms(delay.percentile(99)),
      maxMs: ms(delay.max),
      samples: delay.count
    }
    // GC entries are delivered after the pause, a tick or more later: give the last ones time.
    setTimeout(() => {
      const byKind: Record<string, Pauses> = {}
      const all: Pauses = { count: 0, totalMs: 0, maxMs: 0 }
      for (const pause of pauses) {
        for (const sum of [all, (byKind[pause.kind] ??= { count: 0, totalMs: 0, maxMs: 0 })]) {
          sum.count++
          sum.totalMs += pause.ms
          sum.maxMs = Math.max(sum.maxMs, pause.ms)
        }
      }
      write(n, { seconds: (to - from) / 1000, eventLoop, gc: { ...all, byKind } })
    }, 100)
  })
}
