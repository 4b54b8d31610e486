import * as Headers from "@effect/platform/Headers"
import * as HttpTraceContext from "@effect/platform/HttpTraceContext"
import type { makeExternalSpan } from "@effect/opentelemetry/Tracer"
import { Code } from "@connectrpc/connect"
import { codeFromString } from "@connectrpc/connect/protocol-connect"
import {
  Cause,
  Clock,
  Effect,
  Exit,
  FiberId,
  FiberRef,
  FiberRefs,
  HashMap,
  List,
  type LogSpan,
  Logger,
  LogLevel,
  Metric,
  MetricBoundaries,
  MetricLabel,
  Option,
  Runtime
} from "effect"
import { zipWith } from "effect/Array"
import { type AccessLine, accessLineWriter } from "./AccessLine.js"
import { type Call, finalCode } from "./Calls.js"
import type { Request, Response } from "./RequestHandler.js"

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
  readonly started: (call: Call, request: Request, response: Response) => void
  readonly finished: (call: Call, response: Response) => void
}

/** Codes that mean the server failed the call (OpenTelemetry's rule for gRPC servers), so its span is an error. */
const serverFaults = new Set(["unknown", "deadline_exceeded", "unimplemented", "internal", "unavailable", "data_loss"])

/** OpenTelemetry's attributes of an exception, for an operation's refusal: its tag and message. */
const refusalOf = (outcome: string | undefined, failure: Cause.Cause<unknown>) => ({
  "exception.type": outcome ?? "Error",
  "exception.message": Cause.prettyErrors(failure)[0]?.message ?? ""
})

/** A Connect code's name as its gRPC status number (Connect's codes are gRPC's). */
const grpcStatus = (code: string): number => (code === "ok" ? 0 : codeFromString(code) ?? Code.Unknown)

/** The span's name and first attributes (OpenTelemetry's RPC and HTTP conventions). */
const spanOf = (call: Call, route: (method: string, path: string) => string | undefined) => {
  const common = { "http.request.method": call.method, "url.path": call.path, "onboarding.style": call.style, "onboarding.request_id": call.requestId }
  if (call.style === "connect" || call.style === "grpc" || call.style === "grpc-web") {
    const [service = "", method = ""] = call.path.slice(1).split("/")
    return {
      name: call.path.slice(1),
      attributes: { ...common, "rpc.system": call.style === "connect" ? "connect_rpc" : "grpc", "rpc.service": service, "rpc.method": method }
    }
  }
  const matched = call.style === "rest" ? route(call.method, call.path) : call.path
  return {
    name: matched === undefined ? call.method : `${call.method} ${matched}`,
    attributes: matched === undefined ? common : { ...common, "http.route": matched }
  }
}

/**
 * The caller's span, from W3C Trace Context headers (HTTP headers, and gRPC metadata, which are
 * the same on the wire): `traceparent` for the trace and the caller's span, and `tracestate`, the
 * vendors' entries, which the call's spans carry on (the platform's reader keeps only the first).
 */
/** What traced calls need of @effect/opentelemetry: loaded only when tracing is on, as it costs a start-up time and memory. */
export interface Tracing {
  readonly externalSpan: typeof makeExternalSpan
}

export const loadTracing: Effect.Effect<Tracing> = Effect.promise(() => import("@effect/opentelemetry/Tracer")).pipe(
  Effect.map((module) => ({ externalSpan: module.makeExternalSpan }))
)

const callerSpan = ({ externalSpan }: Tracing, headers: Request["headers"]) => {
  const parent = HttpTraceContext.fromHeaders(Headers.fromInput(headers))
  const state = headers["tracestate"]
  if (Option.isNone(parent) || state === undefined || state === "") return Option.getOrUndefined(parent)
  const { sampled, spanId, traceId } = parent.value
  return externalSpan({ traceId, spanId, traceFlags: sampled ? 1 : 0, traceState: Array.isArray(state) ? state.join(",") : state })
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
  options: {
    readonly accessLog: boolean
    /** Given when calls get server spans (tracing configured). */
    readonly tracing: Tracing | undefined
    /** The REST route (`/orgs/{id}`) a method and path match, for span names. */
    readonly route: (method: string, path: string) => string | undefined
  }
): CallTelemetry => {
  const { accessLog, route, tracing } = options
  const run = Runtime.runSync(runtime)
  // The access line goes straight to the process's loggers, as Effect.logInfo would hand it to
  // them, without running a fiber for it: at one line per call, that fiber would be most of its cost.
  // A logger that writes access lines from their fields (the JSON one) is given just those; the
  // others a log line, made only if there are any. Effect's tracer logger is left out: it adds a
  // line to the current span, and an access line is written outside of any.
  const loggers = Array.from(FiberRefs.getOrDefault(runtime.fiberRefs, FiberRef.currentLoggers))
    .filter((logger) => logger !== Logger.tracerLogger)
  const writers = loggers.flatMap((logger) => accessLineWriter(logger) ?? [])
  const others = loggers.filter((logger) => accessLineWriter(logger) === undefined)
  const logsInfo = LogLevel.greaterThanEqual(LogLevel.Info, FiberRefs.getOrDefault(runtime.fiberRefs, FiberRef.currentMinimumLogLevel))
  const logAccess = (line: AccessLine) => {
    if (!logsInfo) return
    for (const write of writers) write(line)
    if (others.length === 0) return
    const { message, spanId, traceId, ...fields } = line
    const options = {
      fiberId: FiberId.none,
      logLevel: LogLevel.Info,
      message,
      cause: Cause.empty,
      context: runtime.fiberRefs,
      spans: List.empty<LogSpan.LogSpan>(),
      annotations: HashMap.make(
        ["access", true],
        ...Object.entries(traceId === undefined ? fields : { ...fields, traceId, spanId })
      ),
      date: new Date()
    }
    for (const logger of others) logger.log(options)
  }
  const serviceLabel = MetricLabel.make("service", service)
  // Label sets made once each: a metric's update with labels made anew costs a hash of its key.
  // Found by their values (few, and the same strings each call) in nested maps, without a key
  // string built and hashed per update.
  interface LabelNode {
    readonly next: Map<string, LabelNode>
    labels?: ReadonlyArray<MetricLabel.MetricLabel>
  }
  const labelSets = (names: ReadonlyArray<string>) => {
    const root: LabelNode = { next: new Map() }
    return (...values: ReadonlyArray<string>): ReadonlyArray<MetricLabel.MetricLabel> => {
      let node = root
      for (const value of values) {
        let next = node.next.get(value)
        if (next === undefined) {
          next = { next: new Map() }
          node.next.set(value, next)
        }
        node = next
      }
      node.labels ??= [serviceLabel, ...zipWith(names, values, MetricLabel.make)]
      return node.labels
    }
  }
  const inFlight = labelSets(["style"])
  const total = labelSets(["operation", "style", "code"])
  const duration = labelSets(["operation", "style"])
  return {
    started: (call, request, response) => {
      callsInFlight.unsafeUpdate(1, inFlight(call.style))
      if (!tracing) return
      // The caller's trace continues.
      const { attributes, name } = spanOf(call, route)
      // No stack trace: it would always point here, and capturing it (an Error and its stack
      // formatted as an attribute) is among the larger costs of a traced call.
      const span = run(Effect.makeSpan(name, {
        kind: "server",
        attributes,
        parent: callerSpan(tracing, request.headers),
        captureStackTrace: false
      }))
      call.span = span
      // Trace Context Level 2: the caller learns the trace id of its call.
      response.setHeader("traceresponse", `00-${span.traceId}-${span.spanId}-${span.sampled ? "01" : "00"}`)
    },
    finished: (call, response) => {
      const seconds = (performance.now() - call.started) / 1000
      const code = finalCode(call, response)
      const operation = call.operation ?? "none"
      callsInFlight.unsafeUpdate(-1, inFlight(call.style))
      callsTotal.unsafeUpdate(1, total(operation, call.style, code))
      callDuration.unsafeUpdate(seconds, duration(operation, call.style))
      const span = call.span
      if (span !== undefined) {
        span.attribute("http.response.status_code", response.statusCode)
        span.attribute("onboarding.operation", operation)
        span.attribute("onboarding.code", code)
        if (call.style === "grpc" || call.style === "grpc-web") span.attribute("rpc.grpc.status_code", grpcStatus(code))
        if (call.style === "connect" && code !== "ok") span.attribute("rpc.connect_rpc.error_code", code)
        const fault = serverFaults.has(code) || response.statusCode >= 500
        const now = run(Clock.currentTimeNanos)
        // The failure of the operation the span stands for (Operation.ts): a fault ends the span
        // with its cause, which the tracer records as an exception with its message and stack; a
        // refusal is an `exception` event, the span's status staying OpenTelemetry's server rule.
        const failure = call.failure
        if (failure !== undefined && !fault) span.event("exception", now, refusalOf(call.outcome, failure))
        span.end(now, fault ? Exit.failCause(failure ?? Cause.fail(code)) : Exit.void)
      }
      if (!accessLog) return
      logAccess({
        message: `${call.method} ${call.path} ${response.statusCode} ${code}`,
        requestId: call.requestId,
        traceId: span?.traceId,
        spanId: span?.spanId,
        style: call.style,
        operation,
        method: call.method,
        path: call.path,
        status: response.statusCode,
        code,
        durationMs: Math.round(seconds * 1e6) / 1e3
      })
    }
  }
}
