import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import type { Rpc } from "@effect/rpc"
import type { SqlClient } from "@effect/sql"
import { Config, Data, Effect, Layer, Option } from "effect"
import * as Database from "../services/Database.js"
import { DatabaseHealth } from "../services/DatabaseHealth.js"
import { listen } from "../transports/http/PortListener.js"
import { portApp } from "../transports/PortApp.js"
import type { ServicePort } from "./ServicePorts.js"
import { defaultSettings, type Settings, settings as settingsConfig } from "./Settings.js"
import { usage } from "./usage.js"

export { defaultSettings, type Settings }

export class StartupError extends Data.TaggedError("StartupError")<{ readonly message: string }> {}

/** Serves one service's port until the scope closes; answers with the port it listens on. */
export const servePort = <R, Rpcs extends Rpc.Any>(service: ServicePort<R, Rpcs>, port: number, settings: Settings) =>
  Effect.gen(function*() {
    const handler = yield* portApp(service.api, {
      readMaxBytes: settings.readMaxBytes,
      apiToken: settings.apiToken,
      corsOrigins: settings.corsOrigins,
      graphqlLimits: { maxDepth: settings.graphqlMaxDepth, maxFields: settings.graphqlMaxFields }
    })
    return yield* listen(handler, {
      host: settings.host,
      port,
      shutdownGraceMillis: settings.shutdownGraceMillis,
      maxConnections: settings.maxConnections,
      headersTimeoutMillis: settings.headersTimeoutMillis,
      requestTimeoutMillis: settings.requestTimeoutMillis,
      idleTimeoutMillis: settings.idleTimeoutMillis
    })
  })

/** One service port, listening for as long as the layer lives. */
export const portLayer = <R, Rpcs extends Rpc.Any>(
  service: ServicePort<R, Rpcs>,
  port: Config.Config<number>,
  settings: Settings
) =>
  Layer.scopedDiscard(
    Effect.gen(function*() {
      const listener = yield* servePort(service, yield* port, settings)
      yield* Effect.logInfo(
        `${service.name} service (${service.api.connect.service.typeName}) listening on http://${settings.host}:${listener.port}`
      )
      yield* Effect.addFinalizer(() => Effect.logInfo(`${service.name} service stopped`))
    })
  ).pipe(
    Layer.provide(service.rpcHandlers),
    Layer.provideMerge(Layer.merge(service.services, DatabaseHealth.Default))
  )

/**
 * Runs a process until SIGINT/SIGTERM: the database first, then the ports. On a signal the ports
 * close first (in-flight requests finish), then the database, and the process exits 0.
 */
export const runProcess = (options: {
  readonly name: string
  readonly requiresServer: boolean
  readonly ports: (settings: Settings) => Layer.Layer<never, unknown, SqlClient.SqlClient>
}) => {
  if (process.argv.includes("--help") || process.argv.includes("-h")) {
    console.log(usage(options.name))
    process.exit(0)
  }
  const program = Effect.gen(function*() {
    const settings = yield* settingsConfig
    const database = yield* Database.optionsFromConfig
    if (options.requiresServer && database.kind === "embedded") {
      return yield* new StartupError({
        message: `${options.name}: DATABASE_URL is required. A process per service shares one PostgreSQL ` +
          `database; the embedded database serves a single process (use \`npm start\` for that).`
      })
    }
    yield* Effect.logInfo(`${options.name}: database ${Database.describe(database)}`)
    yield* Effect.logInfo(
      `${options.name}: authentication ${Option.isSome(settings.apiToken) ? "by bearer token (API_TOKEN)" : "off"}, ` +
        `CORS ${settings.corsOrigins.length === 0 ? "off" : `for ${settings.corsOrigins.join(", ")}`}`
    )
    return yield* Layer.launch(options.ports(settings).pipe(Layer.provide(Database.layer(database))))
  })
  NodeRuntime.runMain(program)
}
