import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import type { SqlClient } from "@effect/sql"
import { Cause, Effect, Layer, Logger, Redacted } from "effect"
import * as Database from "../services/database/Database.js"
import { ConnectFailed, type DatabaseOptions, type SchemaPolicy, withPasswordMasked } from "../services/database/Database.js"
import { isMigrationsProblem, SchemaBehind } from "../services/database/Migrations.js"
import { logFormat, logLevel, processLogger } from "./Logging.js"
import { databaseFailure, migrationFailure, schemaBehindLine, StartupFailure, startupLine } from "./StartupFailure.js"

// What every command of the package shares, the services and `migrate` alike, apart from
// Process.ts: `migrate` has no port, and so loads none of the transports.

/** The database layer, its start-up failures told in the operator's terms. */
export const databaseLayer = (
  name: string,
  options: DatabaseOptions,
  policy: SchemaPolicy
): Layer.Layer<SqlClient.SqlClient, unknown> => {
  if (options.kind === "embedded") {
    return Database.layer(options, policy).pipe(
      Layer.mapError((error) =>
        error instanceof SchemaBehind ? new StartupFailure({ message: schemaBehindLine(name, error, "DATA_DIR"), cause: error }) : error
      )
    )
  }
  const where = withPasswordMasked(Redacted.value(options.url))
  return Database.layer(options, policy).pipe(
    Layer.mapError((error) =>
      error instanceof ConnectFailed
        ? databaseFailure(name, where, error.cause)
        : isMigrationsProblem(error)
        ? error
        : migrationFailure(name, where, error)
    )
  )
}

/**
 * Runs a process's main effect with the process's logger (LOG_LEVEL, LOG_FORMAT). A failure prints
 * one line on stderr (see StartupFailure), its details at debug level, and the process exits 1.
 */
export const runMain = (name: string, main: Effect.Effect<unknown, unknown>) => {
  const unlessInterrupted = (report: (cause: Cause.Cause<unknown>) => Effect.Effect<void>) => (cause: Cause.Cause<unknown>) =>
    Cause.isInterruptedOnly(cause) ? Effect.void : report(cause)
  const program = Effect.all([logLevel, logFormat]).pipe(
    Effect.flatMap(([level, format]) =>
      main.pipe(
        Effect.tapErrorCause(unlessInterrupted((cause) => Effect.logDebug(`${name}: start-up failed`, cause))),
        Logger.withMinimumLogLevel(level),
        Effect.provide(processLogger(format, name))
      )
    ),
    Effect.tapErrorCause(unlessInterrupted((cause) =>
      Effect.sync(() => process.stderr.write(`${startupLine(name, cause)}\n`))
    ))
  )
  NodeRuntime.runMain(program, { disableErrorReporting: true, disablePrettyLogger: true })
}
