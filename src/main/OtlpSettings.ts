import { Config, Option } from "effect"
import { oneOf, optionalVariable, positive } from "./Variables.js"

// Apart from OpenTelemetry.ts, which loads the OpenTelemetry SDK: a process reads these variables
// always, and loads the SDK only when they ask for an export (loaded, it costs every start-up
// time and memory, used or not).

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

