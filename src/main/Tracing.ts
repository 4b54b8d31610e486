import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import { type DiagLogger, diag, DiagLogLevel } from "@opentelemetry/api"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto"
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Config, Effect, Layer, Option, Runtime } from "effect"
import { oneOf, optionalVariable } from "./Variables.js"

/**
 * Traces go out over OTLP/HTTP (protobuf) when OpenTelemetry's own variables say so, and only
 * then: `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` set (or
 * `OTEL_TRACES_EXPORTER=otlp`, to the default endpoint), and neither `OTEL_SDK_DISABLED=true` nor
 * `OTEL_TRACES_EXPORTER=none`. The SDK reads the rest itself (endpoint, headers, timeouts,
 * `OTEL_BSP_*`, the sampler); the values a process could not work with are refused at start-up,
 * naming the variable, rather than logged by the SDK and replaced by its default.
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

export const tracingEnabled: Config.Config<boolean> = Config.all({
  disabled: oneOf("OTEL_SDK_DISABLED", "false", ["true", "false"] as const),
  exporter: oneOf("OTEL_TRACES_EXPORTER", "default", ["otlp", "none", "default"] as const),
  endpoint: endpoint("OTEL_EXPORTER_OTLP_ENDPOINT"),
  tracesEndpoint: endpoint("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
  // Checked for the refusal only: the SDK reads them itself.
  protocol: oneOf("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf", ["http/protobuf"] as const),
  tracesProtocol: oneOf("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/protobuf", ["http/protobuf"] as const),
  sampler: oneOf("OTEL_TRACES_SAMPLER", "parentbased_always_on", samplers),
  ratio: optionalVariable("OTEL_TRACES_SAMPLER_ARG", "must be a number from 0 to 1", (value) => {
    const ratio = Number(value)
    return /^\s*[\d.]+\s*$/.test(value) && ratio >= 0 && ratio <= 1 ? ratio : undefined
  })
}).pipe(
  Config.map(({ disabled, endpoint, exporter, tracesEndpoint }) =>
    disabled === "false" && exporter !== "none" &&
    (exporter === "otlp" || Option.isSome(endpoint) || Option.isSome(tracesEndpoint))
  )
)

/** Whether the environment names a service itself (it then wins over ours). */
const namesService = Config.all([
  Config.option(Config.string("OTEL_SERVICE_NAME")),
  Config.string("OTEL_RESOURCE_ATTRIBUTES").pipe(Config.withDefault(""))
]).pipe(Config.map(([name, attributes]) => Option.isSome(name) || /(^|,)\s*service\.name\s*=/.test(attributes)))

/** The SDK's own complaints (an unreachable collector, dropped spans) as log lines, at most one a minute each. */
const diagnostics = <R>(runtime: Runtime.Runtime<R>): DiagLogger => {
  const run = Runtime.runFork(runtime)
  const last = new Map<string, number>()
  const say = (level: "warning" | "error") => (message: string, ...args: Array<unknown>) => {
    const key = message.slice(0, 60)
    const now = Date.now()
    if ((last.get(key) ?? 0) > now - 60_000) return
    last.set(key, now)
    const text = [message, ...args.map((arg) => (arg instanceof Error ? arg.message : String(arg)))].join(" ")
    run(level === "error" ? Effect.logError(`OpenTelemetry: ${text}`) : Effect.logWarning(`OpenTelemetry: ${text}`))
  }
  const quiet = () => {}
  return { error: say("error"), warn: say("warning"), info: quiet, debug: quiet, verbose: quiet }
}

/**
 * The tracer of a process named `name` (`org`, ..., `all`): service `onboarding-<name>` unless
 * OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES says otherwise. Spans are batched (a bounded queue:
 * when the collector is slow or gone, spans are dropped and the drop logged, calls never wait),
 * and flushed when the process stops.
 */
export const tracingLayer = (name: string) =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const runtime = yield* Effect.runtime<never>()
    diag.setLogger(diagnostics(runtime), DiagLogLevel.WARN)
    const named = yield* namesService
    return NodeSdk.layer(() => ({
      spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter()),
      ...(named ? {} : { resource: { serviceName: `onboarding-${name}` } }),
      shutdownTimeout: "5 seconds"
    }))
  }))
