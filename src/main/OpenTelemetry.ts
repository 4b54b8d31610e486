import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import { type DiagLogger, diag, DiagLogLevel } from "@opentelemetry/api"
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-proto"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto"
import { PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics"
import { ExportResultCode } from "@opentelemetry/core"
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from "@opentelemetry/sdk-trace-base"
import { Config, Effect, Layer, Metric, MetricLabel, Option, Runtime } from "effect"
import { oneOf, optionalVariable, positive } from "./Variables.js"

/**
 * Traces and metrics go out over OTLP/HTTP (protobuf) when OpenTelemetry's own variables say so,
 * and only then: for each signal, `OTEL_EXPORTER_OTLP_ENDPOINT` or its own endpoint
 * (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `..._METRICS_ENDPOINT`) set, or its exporter named
 * (`OTEL_TRACES_EXPORTER=otlp`, `OTEL_METRICS_EXPORTER=otlp`: the default endpoint), and neither
 * `OTEL_SDK_DISABLED=true` nor that exporter `none`. The SDK reads the rest itself (endpoint,
 * headers, timeouts, `OTEL_BSP_*`, the sampler); the values a process could not work with are
 * refused at start-up, naming the variable, rather than logged by the SDK and replaced by its
 * default.
 */

const samplers = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio"
] as const

const endpoint = (name: string) =>
  optionalVariable(name, "must be an http:// or https:// URL", (value) => {
    try {
      return ["http:", "https:"].includes(new URL(value).protocol) ? value : undefined
    } catch {
      return undefined
    }
  })

export interface OtlpExport {
  readonly traces: boolean
  readonly metrics: boolean
  /** How often metrics are sent, in ms (OTEL_METRIC_EXPORT_INTERVAL). */
  readonly metricsIntervalMillis: number
}

export const otlpExport: Config.Config<OtlpExport> = Config.all({
  disabled: oneOf("OTEL_SDK_DISABLED", "false", ["true", "false"] as const),
  tracesExporter: oneOf("OTEL_TRACES_EXPORTER", "default", ["otlp", "none", "default"] as const),
  metricsExporter: oneOf("OTEL_METRICS_EXPORTER", "default", ["otlp", "none", "default"] as const),
  endpoint: endpoint("OTEL_EXPORTER_OTLP_ENDPOINT"),
  tracesEndpoint: endpoint("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
  metricsEndpoint: endpoint("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"),
  // Checked for the refusal only: the SDK reads them itself.
  protocol: oneOf("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf", ["http/protobuf"] as const),
  tracesProtocol: oneOf("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/protobuf", ["http/protobuf"] as const),
  metricsProtocol: oneOf("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "http/protobuf", ["http/protobuf"] as const),
  sampler: oneOf("OTEL_TRACES_SAMPLER", "parentbased_always_on", samplers),
  ratio: optionalVariable("OTEL_TRACES_SAMPLER_ARG", "must be a number from 0 to 1", (value) => {
    const ratio = Number(value)
    return /^\s*[\d.]+\s*$/.test(value) && ratio >= 0 && ratio <= 1 ? ratio : undefined
  }),
  metricsIntervalMillis: positive("OTEL_METRIC_EXPORT_INTERVAL", 60_000)
}).pipe(
  Config.map((read) => {
    const on = (exporter: "otlp" | "none" | "default", own: Option.Option<string>) =>
      read.disabled === "false" && exporter !== "none" &&
      (exporter === "otlp" || Option.isSome(read.endpoint) || Option.isSome(own))
    return {
      traces: on(read.tracesExporter, read.tracesEndpoint),
      metrics: on(read.metricsExporter, read.metricsEndpoint),
      metricsIntervalMillis: read.metricsIntervalMillis
    }
  })
)

/** Whether the environment names a service itself (it then wins over ours). */
const namesService = Config.all([
  Config.option(Config.string("OTEL_SERVICE_NAME")),
  Config.string("OTEL_RESOURCE_ATTRIBUTES").pipe(Config.withDefault(""))
]).pipe(Config.map(([name, attributes]) => Option.isSome(name) || /(^|,)\s*service\.name\s*=/.test(attributes)))

/**
 * Spans that never reached the collector: `queue_full` when the batch queue (OTEL_BSP_MAX_QUEUE_SIZE)
 * had no room (the collector slower than the calls), `export_failed` when the collector refused
 * them or could not be reached.
 */
export const spansDropped = Metric.counter("onboarding_trace_spans_dropped_total", {
  description: "Spans not delivered to the OTLP collector, by reason (queue_full, export_failed)"
})

const queueFull = [MetricLabel.make("reason", "queue_full")]
const exportFailed = [MetricLabel.make("reason", "export_failed")]

// The batch processor's only word of the spans it drops for want of room (its count since the last one).
const droppedForRoom = /^Dropped (\d+) spans because maxQueueSize reached/

/** The exporter, counting the spans of each batch it could not deliver. */
const counted = (exporter: SpanExporter): SpanExporter => ({
  export: (spans: Array<ReadableSpan>, done) =>
    exporter.export(spans, (result) => {
      if (result.code !== ExportResultCode.SUCCESS) spansDropped.unsafeUpdate(spans.length, exportFailed)
      done(result)
    }),
  shutdown: () => exporter.shutdown(),
  forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve()
})

/** The SDK's global error handler hands on an error as its JSON, stack and all: its message says enough. */
const plain = (message: string): string => {
  if (!message.startsWith("{")) return message
  try {
    const parsed: unknown = JSON.parse(message)
    return typeof parsed === "object" && parsed !== null && "message" in parsed ? String(parsed.message) : message
  } catch {
    return message
  }
}

/** The SDK's own complaints (an unreachable collector, dropped spans) as log lines, at most one a minute each. */
const diagnostics = <R>(runtime: Runtime.Runtime<R>): DiagLogger => {
  const run = Runtime.runFork(runtime)
  const last = new Map<string, number>()
  const say = (level: "warning" | "error") => (message: string, ...args: Array<unknown>) => {
    const dropped = droppedForRoom.exec(message)
    if (dropped !== null) spansDropped.unsafeUpdate(Number(dropped[1]), queueFull)
    // Counts apart, one kind of complaint is one line a minute.
    const key = message.slice(0, 60).replace(/\d+/g, "N")
    const now = Date.now()
    if ((last.get(key) ?? 0) > now - 60_000) return
    last.set(key, now)
    const text = [plain(message), ...args.map((arg) => (arg instanceof Error ? arg.message : String(arg)))].join(" ")
    run(level === "error" ? Effect.logError(`OpenTelemetry: ${text}`) : Effect.logWarning(`OpenTelemetry: ${text}`))
  }
  const quiet = () => {}
  return { error: say("error"), warn: say("warning"), info: quiet, debug: quiet, verbose: quiet }
}

/**
 * OpenTelemetry for a process named `name` (`org`, ..., `all`): service `onboarding-<name>` unless
 * OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES says otherwise. Spans are batched (a bounded queue:
 * when the collector is slow or gone, spans are dropped, counted and the drop logged, calls never
 * wait);
 * the process's metrics (the same as /metrics shows) are read and sent every interval. Both are
 * flushed when the process stops.
 */
export const openTelemetryLayer = (name: string, otlp: OtlpExport) =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const runtime = yield* Effect.runtime<never>()
    diag.setLogger(diagnostics(runtime), DiagLogLevel.WARN)
    const named = yield* namesService
    return NodeSdk.layer(() => ({
      ...(otlp.traces ? { spanProcessor: new BatchSpanProcessor(counted(new OTLPTraceExporter())) } : {}),
      ...(otlp.metrics
        ? {
          metricReader: new PeriodicExportingMetricReader({
            exporter: new OTLPMetricExporter(),
            exportIntervalMillis: otlp.metricsIntervalMillis,
            exportTimeoutMillis: Math.min(30_000, otlp.metricsIntervalMillis)
          })
        }
        : {}),
      ...(named ? {} : { resource: { serviceName: `onboarding-${name}` } }),
      shutdownTimeout: "5 seconds"
    }))
  }))
