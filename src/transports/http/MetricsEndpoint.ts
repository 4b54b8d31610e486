import { Metric, type MetricPair, MetricState } from "effect"
import { monitorEventLoopDelay } from "node:perf_hooks"
import type { Request, Response } from "./RequestHandler.js"

/**
 * `GET /metrics`: every metric of the process in Prometheus's text format (version 0.0.4), then
 * the usual Node process metrics under prom-client's names. The registry is the process's: in the
 * all-in-one process each port shows every service's calls, told apart by their `service` label.
 */

const escapeLabel = (value: string) => value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, "\\\"")
const escapeHelp = (value: string) => value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")

const labels = (pairs: ReadonlyArray<readonly [string, string]>): string =>
  pairs.length === 0 ? "" : `{${pairs.map(([key, value]) => `${key}="${escapeLabel(value)}"`).join(",")}}`

const number = (value: number | bigint): string =>
  typeof value === "bigint" ? value.toString() : value === Infinity ? "+Inf" : value === -Infinity ? "-Inf" : String(value)

interface Family {
  type: "counter" | "gauge" | "histogram"
  help: string
  readonly lines: Array<string>
}

const render = (pairs: ReadonlyArray<MetricPair.MetricPair.Untyped>): string => {
  const families = new Map<string, Family>()
  for (const { metricKey, metricState } of pairs) {
    const name = metricKey.name
    const tags = metricKey.tags.map((tag) => [tag.key, tag.value] as const)
    const family = (type: Family["type"]) => {
      let found = families.get(name)
      if (found === undefined) {
        found = { type, help: metricKey.description._tag === "Some" ? metricKey.description.value : name, lines: [] }
        families.set(name, found)
      }
      return found
    }
    if (MetricState.isCounterState(metricState)) {
      // `_total` counters only ever grow; the others (calls in flight) go up and down.
      family(name.endsWith("_total") ? "counter" : "gauge").lines.push(`${name}${labels(tags)} ${number(metricState.count)}`)
    } else if (MetricState.isGaugeState(metricState)) {
      family("gauge").lines.push(`${name}${labels(tags)} ${number(metricState.value)}`)
    } else if (MetricState.isHistogramState(metricState)) {
      const histogram = family("histogram")
      for (const [bound, count] of metricState.buckets) {
        if (bound !== Infinity) histogram.lines.push(`${name}_bucket${labels([...tags, ["le", number(bound)]])} ${count}`)
      }
      histogram.lines.push(`${name}_bucket${labels([...tags, ["le", "+Inf"]])} ${metricState.count}`)
      histogram.lines.push(`${name}_sum${labels(tags)} ${metricState.sum}`)
      histogram.lines.push(`${name}_count${labels(tags)} ${metricState.count}`)
    }
  }
  return [...families].map(([name, family]) =>
    `# HELP ${name} ${escapeHelp(family.help)}\n# TYPE ${name} ${family.type}\n${family.lines.join("\n")}\n`
  ).join("")
}

let eventLoop: ReturnType<typeof monitorEventLoopDelay> | undefined

const processMetrics = (): string => {
  if (eventLoop === undefined) {
    eventLoop = monitorEventLoopDelay({ resolution: 10 })
    eventLoop.enable()
  }
  const memory = process.memoryUsage()
  const cpu = process.cpuUsage()
  const seconds = (nanos: number) => (Number.isFinite(nanos) ? nanos / 1e9 : 0)
  const gauge = (name: string, help: string, value: number, type = "gauge") =>
    `# HELP ${name} ${help}\n# TYPE ${name} ${type}\n${name} ${value}\n`
  return [
    gauge("process_cpu_seconds_total", "User and system CPU time spent in seconds", (cpu.user + cpu.system) / 1e6, "counter"),
    gauge("process_resident_memory_bytes", "Resident memory size in bytes", memory.rss),
    gauge("process_start_time_seconds", "Start time of the process since the Unix epoch in seconds", Math.round(Date.now() / 1000 - process.uptime())),
    gauge("nodejs_heap_size_total_bytes", "Process heap size from Node.js in bytes", memory.heapTotal),
    gauge("nodejs_heap_size_used_bytes", "Process heap size used from Node.js in bytes", memory.heapUsed),
    gauge("nodejs_external_memory_bytes", "Node.js external memory size in bytes", memory.external),
    gauge("nodejs_eventloop_lag_p50_seconds", "The 50th percentile of the event loop delay", seconds(eventLoop.percentile(50))),
    gauge("nodejs_eventloop_lag_p99_seconds", "The 99th percentile of the event loop delay", seconds(eventLoop.percentile(99))),
    gauge("nodejs_eventloop_lag_max_seconds", "The maximum event loop delay", seconds(eventLoop.max))
  ].join("")
}

const contentType = "text/plain; version=0.0.4; charset=utf-8"

export const metricsEndpoint = (request: Request, response: Response): boolean => {
  if (request.method !== "GET" && request.method !== "HEAD") {
    response.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain; charset=utf-8" })
    response.end("method not allowed; use GET\n")
    return true
  }
  const body = render(Metric.unsafeSnapshot()) + processMetrics()
  response.writeHead(200, { "content-type": contentType, "content-length": Buffer.byteLength(body), "cache-control": "no-store" })
  if (request.method === "HEAD") response.end()
  else response.end(body)
  return true
}
