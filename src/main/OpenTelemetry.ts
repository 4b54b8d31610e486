import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import * as OtelTracer from "@effect/opentelemetry/Tracer"
import { context, createContextKey, type DiagLogger, diag, DiagLogLevel, ROOT_CONTEXT } from "@opentelemetry/api"
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-proto"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto"
import { PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics"
import { ExportResultCode } from "@opentelemetry/core"
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter, type SpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Config, Effect, Layer, Metric, MetricLabel, Option, Runtime, Tracer } from "effect"
import type { OtlpExport } from "./OtlpSettings.js"

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

const shutdownTimeout = "5 seconds"

/**
 * Whether a context manager is registered with OpenTelemetry's API. Without one (the API's
 * default, which nothing here changes), `context.with` runs its function and drops the context it
 * was given, and `context.active()` is always the root context.
 */
const contextManaged = (): boolean => {
  const key = createContextKey("onboarding/context-probe")
  return context.with(ROOT_CONTEXT.setValue(key, true), () => context.active().getValue(key) === true)
}

/**
 * @effect/opentelemetry's tracer on a span processor. Each time a traced fiber resumes, that
 * tracer builds an OpenTelemetry Context holding the fiber's span (a span-context wrapper and a
 * copy of the context's Map) for `context.with`, for instrumentations that read the active
 * context. No context manager means no reader: the context is dropped at once, and building it was
 * the largest part of what a traced call cost beyond the spans themselves (docs/benchmarks.md §5).
 * The same tracer then runs a fiber as the untraced one does; its spans, their parents and what
 * is exported are unchanged.
 */
const tracerLayer = (processor: SpanProcessor) =>
  Layer.unwrapEffect(Effect.map(OtelTracer.make, (tracer) =>
    Layer.setTracer(
      contextManaged() ? tracer : Tracer.make({ span: tracer.span, context: (execution) => execution() })
    ))).pipe(
      Layer.provideMerge(OtelTracer.layerTracer),
      Layer.provide(NodeSdk.layerTracerProvider(processor, { shutdownTimeout }))
    )

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
    const sdk = NodeSdk.layer(() => ({
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
      shutdownTimeout
    }))
    return otlp.traces
      ? Layer.provideMerge(tracerLayer(new BatchSpanProcessor(counted(new OTLPTraceExporter()))), sdk)
      : sdk
  }))
