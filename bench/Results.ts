import type { Measured } from "./load/Measured.js"
import type { Operation, Style } from "./Scenarios.js"

/**
 * Who served a measured cell: the services (per database mode; on PostgreSQL also the org
 * process again with OTLP export configured, "traced") or one of the baselines.
 */
export type Server = "services-pg" | "services-pg-traced" | "services-embedded" | "a" | "b" | "c" | "d" | "e" | "f" | "g" | "h"

export interface Cell {
  readonly server: Server
  readonly operation: Operation
  readonly style: Style | "pgbench"
  readonly concurrency: number
  readonly measured: Measured
  /** The serving process's CPU time per completed request, in microseconds (not for pgbench). */
  readonly cpuMicrosPerRequest?: number
}

/**
 * One more window at c1 of the org process, untraced or traced, measured after the scenario's
 * own windows and alternated with the other's: the traced target reads every such window with the
 * c1 cell, so that one window's luck does not decide it.
 */
export interface TracedWindow {
  readonly server: "services-pg" | "services-pg-traced"
  readonly operation: Operation
  readonly style: Style
  readonly requests: number
  /** The serving process's CPU time over the window, in microseconds. */
  readonly cpuMicros: number
}

export interface ProcessFigures {
  readonly server: Server
  readonly name: string
  readonly readyMillis: number
  readonly idleMiB: number
  /** Undefined for a process only started and stopped (the embedded one on a new data directory). */
  readonly loadMiB: number | undefined
  readonly errorsLogged: number
  /** The embedded database's data directory: made by this start-up, or left by an earlier one. */
  readonly dataDirectory?: "new" | "existing"
}

export interface Results {
  readonly cells: ReadonlyArray<Cell>
  readonly processes: ReadonlyArray<ProcessFigures>
  readonly concurrencies: ReadonlyArray<number>
  /** The traced run's calls (check, warm-up and measured) and the spans the OTLP sink received for them. */
  readonly traced?: { readonly calls: number; readonly spans: number }
  /** The traced target's further c1 windows (TracedWindow); none in reports of earlier runs. */
  readonly tracedWindows?: ReadonlyArray<TracedWindow>
}
