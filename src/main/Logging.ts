import { Cause, Config, Context, FiberRef, FiberRefs, HashMap, List, Logger, LogLevel, Option, Record, Tracer } from "effect"
import { CurrentCallNote } from "../operations/Operation.js"
import { type AccessLine, withAccessLines } from "../transports/http/AccessLine.js"
import { oneOf } from "./Variables.js"

/** The words LOG_LEVEL takes; `warn` too, the spelling most loggers use. */
const logLevels = { debug: LogLevel.Debug, info: LogLevel.Info, warning: LogLevel.Warning, warn: LogLevel.Warning, error: LogLevel.Error }

/** Start-up failures print one line; their details are logged at `debug`. */
export const logLevel: Config.Config<LogLevel.LogLevel> = oneOf(
  "LOG_LEVEL",
  "info",
  Record.keys(logLevels)
).pipe(Config.map((level) => logLevels[level]))

/**
 * `json` (one object per line, for a log pipeline) unless stdout is a terminal, where people read
 * `pretty`; either can be asked for.
 */
export const logFormat: Config.Config<"json" | "pretty"> = oneOf(
  "LOG_FORMAT",
  process.stdout.isTTY === true ? "pretty" : "json",
  ["json", "pretty"] as const
)

const text = (part: unknown): string =>
  typeof part === "string" ? part : part instanceof Error ? part.message : JSON.stringify(part) ?? String(part)

/** `warning` rather than Effect's `WARN`: the words LOG_LEVEL takes. */
const levelName = (level: LogLevel.LogLevel) => level._tag.toLowerCase()

/**
 * Lines for stdout, written together once per turn of the event loop. Writes to a pipe are
 * synchronous on Linux, one system call (and a wake-up of the reader) each: with an access line
 * per call, that is the largest part of what logging costs under load. A line waits at most until
 * the current turn ends, and what waits is written when the process exits.
 */
const batchedStdout = (): ((line: string) => void) => {
  let pending: Array<string> = []
  let scheduled = false
  const flush = () => {
    scheduled = false
    if (pending.length === 0) return
    const text = pending.join("")
    pending = []
    process.stdout.write(text)
  }
  process.once("exit", flush)
  return (line) => {
    pending.push(line)
    if (!scheduled) {
      scheduled = true
      setImmediate(flush)
    }
  }
}

/**
 * `time` of a line: ISO 8601 in UTC with milliseconds, as `Date.prototype.toISOString` writes it.
 * The date and the seconds are formatted once a second; a line adds only its milliseconds.
 */
const isoTime = (() => {
  let second = Number.NaN
  let prefix = ""
  return (now: number): string => {
    const ms = now % 1000
    if (now - ms !== second) {
      second = now - ms
      prefix = new Date(second).toISOString().slice(0, 20)
    }
    return `${prefix}${ms < 10 ? "00" : ms < 100 ? "0" : ""}${ms}Z`
  }
})()

/**
 * One JSON object per line: `time`, `level`, `message`, `service`, then the call's annotations
 * (`requestId`, ...), its `traceId` and `spanId` when traced, the log spans' durations in ms, and
 * a failure's `cause` as one string.
 */
export const jsonLogger = (service: string, write: (line: string) => void = batchedStdout()) =>
  withAccessLines(
    Logger.make(({ annotations, cause, context, date, logLevel, message, spans }) => {
      const line: Record<string, unknown> = {
        time: isoTime(date.getTime()),
        level: levelName(logLevel),
        message: Array.isArray(message) ? message.map(text).join(" ") : text(message),
        service
      }
      // Written during a call: its request id, from the call's note (src/transports/http/Calls.ts).
      const note = FiberRefs.getOrDefault(context, CurrentCallNote)
      if (note !== undefined) line["requestId"] = note.requestId
      for (const [key, value] of HashMap.toEntries(annotations)) line[key] = value
      // Written inside a traced call: the ids that join this line to its trace.
      const span = Context.getOption(FiberRefs.getOrDefault(context, FiberRef.currentContext), Tracer.ParentSpan)
      if (Option.isSome(span)) {
        line["traceId"] = span.value.traceId
        line["spanId"] = span.value.spanId
      }
      const now = date.getTime()
      for (const span of List.toArray(spans)) line[`${span.label}Ms`] = now - span.startTime
      if (!Cause.isEmpty(cause)) line.cause = Cause.pretty(cause, { renderErrorCause: true })
      write(`${JSON.stringify(line)}\n`)
    }),
    // An access line (one a call) made from its fields, in one object of one shape: the same line
    // as the generic path gives, without the annotations' HashMap, a Date and the context reads.
    (access) =>
      write(`${
        JSON.stringify({
          time: isoTime(Date.now()),
          level: "info",
          message: access.message,
          service,
          access: true,
          requestId: access.requestId,
          traceId: access.traceId,
          spanId: access.spanId,
          style: access.style,
          operation: access.operation,
          method: access.method,
          path: access.path,
          status: access.status,
          code: access.code,
          durationMs: access.durationMs
        })
      }\n`)
  )

/** `09:30:03.452`, local time, as Effect's pretty logger writes a line's time. */
const clockTime = (date: Date) =>
  `${String(date.getHours()).padStart(2, "0")}:${String(date.getMinutes()).padStart(2, "0")}:` +
  `${String(date.getSeconds()).padStart(2, "0")}.${String(date.getMilliseconds()).padStart(3, "0")}`

/** An access line for a person: one line, as the pretty logger's others are (it would spread its fields over ten). */
export const prettyAccessLine = (access: AccessLine, now = new Date()): string =>
  `[${clockTime(now)}] INFO access: ${access.message} ${access.durationMs} ms (${access.style} ${access.operation}, ` +
  `request ${access.requestId}${access.traceId === undefined ? "" : `, trace ${access.traceId}`})\n`

/**
 * Effect's pretty logger, with the request id of the call a line is written during as an
 * annotation, and access lines written on one line each.
 */
export const prettyLogger = (write: (line: string) => void = (line) => process.stdout.write(line)) =>
  withAccessLines(
    Logger.mapInputOptions(Logger.prettyLoggerDefault, (options) => {
      const note = FiberRefs.getOrDefault(options.context, CurrentCallNote)
      return note === undefined || HashMap.has(options.annotations, "requestId")
        ? options
        : { ...options, annotations: HashMap.set(options.annotations, "requestId", note.requestId) }
    }),
    (access) => write(prettyAccessLine(access))
  )

/** The process's logger in `format`, naming `service` (the process: org, ..., all). */
export const processLogger = (format: "json" | "pretty", service: string) =>
  Logger.replace(Logger.defaultLogger, format === "json" ? jsonLogger(service) : prettyLogger())
