import { Effect, Metric, MetricBoundaries, MetricLabel, Runtime } from "effect"
import { type Call, finalCode } from "./Calls.js"
import type { Response } from "./PortListener.js"

/**
 * RED metrics of every call in every style, refusals included: their names and labels are part of
 * what operators build dashboards on (docs/observability.md). `service` is the port's protobuf
 * service, `operation` the operation table's name (`CreateOrg`; `none` when the call was answered
 * before any operation ran), `style` how it came, `code` what it got in Connect's names.
 */
export const callsTotal = Metric.counter("onboarding_calls_total", {
  description: "Calls answered, by service, operation, style and code"
})

export const callDuration = Metric.histogram(
  "onboarding_call_duration_seconds",
  MetricBoundaries.fromIterable([0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]),
  "Time from the request's first look to the end of its response, by service, operation and style"
)

export const callsInFlight = Metric.counter("onboarding_calls_in_flight", {
  description: "Calls begun and not yet answered, by service and style"
})

export interface CallTelemetry {
  readonly started: (call: Call) => void
  readonly finished: (call: Call, response: Response) => void
}

/**
 * What happens as a call begins and ends on the port of `service`: the metrics above, and, unless
 * `accessLog` is off, one log line per call through the process's logger (so in JSON when the
 * process logs JSON) with its request id, style, operation, method, path, status, code and
 * duration.
 */
export const callTelemetry = <R>(
  runtime: Runtime.Runtime<R>,
  service: string,
  accessLog: boolean
): CallTelemetry => {
  const runLog = Runtime.runSync(runtime)
  const serviceLabel = MetricLabel.make("service", service)
  const flightLabels = new Map<string, ReadonlyArray<MetricLabel.MetricLabel>>()
  const inFlight = (call: Call) => {
    let labels = flightLabels.get(call.style)
    if (labels === undefined) {
      labels = [serviceLabel, MetricLabel.make("style", call.style)]
      flightLabels.set(call.style, labels)
    }
    return labels
  }
  return {
    started: (call) => callsInFlight.unsafeUpdate(1, inFlight(call)),
    finished: (call, response) => {
      const seconds = (performance.now() - call.started) / 1000
      const code = finalCode(call, response)
      const operation = call.operation ?? "none"
      const labels = [serviceLabel, MetricLabel.make("operation", operation), MetricLabel.make("style", call.style)]
      callsInFlight.unsafeUpdate(-1, inFlight(call))
      callsTotal.unsafeUpdate(1, [...labels, MetricLabel.make("code", code)])
      callDuration.unsafeUpdate(seconds, labels)
      if (!accessLog) return
      runLog(
        Effect.logInfo(`${call.method} ${call.path} ${response.statusCode} ${code}`).pipe(
          Effect.annotateLogs({
            access: true,
            requestId: call.requestId,
            style: call.style,
            operation,
            method: call.method,
            path: call.path,
            status: response.statusCode,
            code,
            durationMs: Math.round(seconds * 1e6) / 1e3
          })
        )
      )
    }
  }
}
