import type { Logger } from "effect"

/** What a call's access line says besides its time, level and service (docs/observability.md). */
export interface AccessLine {
  readonly message: string
  readonly requestId: string
  /** The call's trace and server span, when it is traced. */
  readonly traceId: string | undefined
  readonly spanId: string | undefined
  readonly style: string
  readonly operation: string
  readonly method: string
  readonly path: string
  readonly status: number
  readonly code: string
  readonly durationMs: number
}

const writesAccessLines = Symbol.for("onboarding/writesAccessLines")

/**
 * A logger that also writes access lines from their fields, given `write`: the process's JSON
 * logger, which so skips what any other logger needs for a line (its annotations as a HashMap, a
 * Date, its context read) once a call. Other loggers get access lines as log lines.
 */
export const withAccessLines = <L extends Logger.Logger<unknown, unknown>>(logger: L, write: (line: AccessLine) => void): L =>
  Object.assign(logger, { [writesAccessLines]: write })

/** How `logger` writes access lines itself, if it does. */
export const accessLineWriter = (logger: object): ((line: AccessLine) => void) | undefined =>
  writesAccessLines in logger ? (logger[writesAccessLines] as (line: AccessLine) => void) : undefined
