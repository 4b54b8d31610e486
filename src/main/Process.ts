import type { Rpc } from "@effect/rpc"
import type { SqlClient } from "@effect/sql"
import { Array as Arr, Config, Duration, Effect, Layer, Option, type Scope } from "effect"
import * as Database from "../services/database/Database.js"
import { DatabaseHealthLive, HealthCheckInterval } from "../services/database/DatabaseHealth.js"
import { unitOfWorkReferences } from "../services/database/Transient.js"
import { Draining, drainingHealth } from "../services/database/Draining.js"
import type { ListenError } from "../transports/http/PortListener.js"
import { HealthWatches } from "../transports/health/HealthWatches.js"
import { listen, portFree } from "../transports/http/PortListener.js"
import { portApp } from "../transports/PortApp.js"
import type { AllowedHosts } from "../transports/limits/AllowedHosts.js"
import { allowedHostNames } from "./AllowedHostNames.js"
import { consoleOrigins, consoleSettings } from "./ConsoleSettings.js"
import { databaseOptions, schemaPolicy } from "./DatabaseSettings.js"
import type { ServicePort } from "./ServicePorts.js"
import {
  dedicatedPort,
  servicePort,
  Settings,
  settings as settingsConfig,
  type SettingsValues
} from "./Settings.js"
import { databaseLayer, runMain } from "./Commands.js"
import { listenFailure, StartupFailure } from "./StartupFailure.js"
import { restPaths } from "./Usage.js"
import { type Offered, usage } from "./Usage.js"

export { Settings }

const hostNamesShown = (hosts: AllowedHosts) => (hosts.any ? "any (ALLOWED_HOSTS=*)" : hosts.names.join(", "))

/** Serves one service's port until the scope closes; answers with the port it listens on. */
export const servePort = <R, Rpcs extends Rpc.Any>(service: ServicePort<R, Rpcs>, port: number) =>
  Effect.gen(function*() {
    const settings = yield* Settings
    const hosts = allowedHostNames(settings)
    const handler = yield* portApp(service.api, {
      readMaxBytes: settings.readMaxBytes,
      apiToken: settings.apiToken,
      schemaAccess: settings.schemaAccess,
      tokenlessRates: { perSecond: settings.schemaAccessRate, perAddressPerSecond: settings.schemaAccessRatePerAddress },
      corsOrigins: settings.corsOrigins,
      graphqlLimits: { maxDepth: settings.graphqlMaxDepth, maxFields: settings.graphqlMaxFields, maxCalls: settings.graphqlMaxCalls },
      jsonBounds: { maxDepth: settings.jsonMaxDepth, maxValues: settings.jsonMaxValues },
      protobufMaxFields: settings.protobufMaxFields,
      maxRequestsInFlight: settings.maxRequestsInFlight,
      maxRequestsAwaitingBody: settings.maxRequestsAwaitingBody,
      accessLog: settings.accessLog,
      tracing: settings.otlp.traces,
      allowedHosts: hosts,
      ...(service.servesConsole === true ? { console: consoleSettings(settings, hosts) } : {}),
      consoleOrigins: consoleOrigins(settings, hosts)
    })
    return yield* listen(handler, {
      host: settings.host,
      port,
      shutdownGraceMillis: settings.shutdownGraceMillis,
      maxConnections: settings.maxConnections,
      maxConnectionsPerAddress: settings.maxConnectionsPerAddress,
      headersTimeoutMillis: settings.headersTimeoutMillis,
      requestTimeoutMillis: settings.requestTimeoutMillis,
      idleTimeoutMillis: settings.idleTimeoutMillis,
      maxStreamsPerConnection: settings.maxStreamsPerConnection,
      maxStreamResets: settings.maxStreamResets
    })
  })

/** One service port, listening for as long as the layer lives. */
export const portLayer = <R, Rpcs extends Rpc.Any>(
  service: ServicePort<R, Rpcs>,
  port: number,
  settings: SettingsValues,
  failure: (listenError: ListenError) => StartupFailure
) =>
  Layer.scopedDiscard(
    Effect.gen(function*() {
      const listener = yield* servePort(service, port).pipe(
        Effect.catchTag("ListenError", (error) => Effect.fail(failure(error)))
      )
      yield* Effect.logInfo(
        `${service.name} service (${service.api.connect.service.typeName}) listening on http://${settings.host}:${listener.port}`
      )
      yield* Effect.addFinalizer(() => Effect.logInfo(`${service.name} service stopped`))
      // Finalizers run last first: the drain, then the listener's close.
      const { drain } = yield* Draining
      yield* Effect.addFinalizer(() => drain)
    })
  ).pipe(
    Layer.provide(Layer.merge(service.rpcHandlers, unitOfWorkReferences)),
    Layer.provideMerge(Layer.merge(service.services, drainingHealth.pipe(Layer.provide(DatabaseHealthLive)))),
    Layer.provide(Layer.succeed(HealthCheckInterval, Duration.millis(settings.healthCheckIntervalMillis))),
    Layer.provide(Settings.layer(settings))
  )

/** A service port as a process serves it: where its port number comes from, and its layer. */
export interface PortPlan {
  readonly service: string
  readonly port: Config.Config<number>
  /** Where the port number comes from, as a person sets it: `ORG_PORT`, or `PORT or ORG_PORT`. */
  readonly portVariables: string
  /** What `--help` says the port serves. */
  readonly offered: Offered
  /** Fails with the port's one-line start-up failure unless it can be listened on (held while the scope lives). */
  readonly free: (port: number, settings: SettingsValues, processName: string) => Effect.Effect<void, StartupFailure, Scope.Scope>
  readonly layer: (
    port: number,
    settings: SettingsValues,
    processName: string
  ) => Layer.Layer<never, unknown, SqlClient.SqlClient | Draining | HealthWatches>
}

const plan = <R, Rpcs extends Rpc.Any>(
  service: ServicePort<R, Rpcs>,
  port: Config.Config<number>,
  portVariables: string
): PortPlan => ({
  service: service.name,
  port,
  portVariables,
  offered: { restPaths: restPaths(service.api.rest.api), console: service.servesConsole === true },
  free: (number, settings, processName) =>
    portFree(settings.host, number).pipe(Effect.mapError(failure(service, number, settings, processName, portVariables))),
  layer: (number, settings, processName) =>
    portLayer(service, number, settings, failure(service, number, settings, processName, portVariables))
})

const failure = <R, Rpcs extends Rpc.Any>(
  service: ServicePort<R, Rpcs>,
  port: number,
  settings: SettingsValues,
  processName: string,
  portVariables: string
) =>
(error: ListenError) => listenFailure(processName, { host: settings.host, port, service: service.name }, portVariables, error)

/** In the all-in-one process: the service's own variable (`ORG_PORT`) or its default port. */
export const besideOthers = <R, Rpcs extends Rpc.Any>(service: ServicePort<R, Rpcs>) =>
  plan(service, servicePort(service.portVariable, service.defaultPort), service.portVariable)

/** In a process of its own: `PORT` first, then the service's own variable. */
export const onItsOwn = <R, Rpcs extends Rpc.Any>(service: ServicePort<R, Rpcs>) =>
  plan(service, dedicatedPort(service.portVariable, service.defaultPort), `PORT or ${service.portVariable}`)

/**
 * `npm start` forwards to us the Ctrl-C that the terminal has already delivered (one process
 * group), and runMain stops listening after the first signal: the echo would kill the process
 * mid-shutdown. A repeat within a moment is taken as that echo; a later one still stops it at once.
 */
const ignoreEchoedSignals = () => {
  let first: number | undefined
  const onSignal = (signal: NodeJS.Signals) => {
    first ??= Date.now()
    if (Date.now() - first < 1_000) return
    process.off("SIGINT", onSignal)
    process.off("SIGTERM", onSignal)
    process.kill(process.pid, signal)
  }
  process.on("SIGINT", onSignal)
  process.on("SIGTERM", onSignal)
}

/**
 * `PORT`, set for a process of several ports, which takes each port from a variable of its own:
 * said in a warning rather than ignored in silence (a platform that sets `PORT` expects it obeyed).
 */
const ignoredPort = (name: string, ports: ReadonlyArray<PortPlan>) =>
  Effect.gen(function*() {
    if (ports.length < 2) return
    const conventional = (yield* Config.string("PORT").pipe(Config.withDefault(""))).trim()
    if (conventional === "") return
    yield* Effect.logWarning(
      `${name}: PORT=${conventional} is ignored: this process serves ${ports.length} ports, each on its own variable ` +
        `(${ports.map((port) => port.portVariables).join(", ")})`
    )
  })

/**
 * Runs a process until SIGINT/SIGTERM. Every setting is read and checked first, and every port
 * found free; then the database, then the ports. On a signal the process first drains (SHUTDOWN_DRAIN_MS: still
 * serving, but not ready), then the ports close (in-flight requests finish), then the database,
 * and the process exits 0. A failed start prints one line on stderr (see
 * StartupFailure) and exits 1; the details are logged at debug level.
 */
export const runProcess = (options: {
  readonly name: string
  readonly requiresServer: boolean
  readonly ports: readonly [PortPlan, ...Array<PortPlan>]
}) => {
  if (process.argv.includes("--help") || process.argv.includes("-h")) {
    console.log(usage(options.name, {
      restPaths: options.ports.flatMap((port) => port.offered.restPaths),
      console: options.ports.some((port) => port.offered.console)
    }))
    process.exit(0)
  }
  const start = Effect.gen(function*() {
    const read = yield* settingsConfig
    const database = yield* databaseOptions
    const policy = yield* schemaPolicy
    const planned = yield* Effect.forEach(options.ports, (plan) => Effect.map(plan.port, (port) => ({ plan, port })))
    const settings = { ...read, processPorts: Object.fromEntries(planned.map(({ plan, port }) => [plan.service, port])) }
    if (options.requiresServer && database.kind === "embedded") {
      return yield* new StartupFailure({
        message: `${options.name}: DATABASE_URL is required. A process per service shares one PostgreSQL ` +
          `database; the embedded database serves a single process (use \`npm start\` for that).`
      })
    }
    yield* ignoredPort(options.name, options.ports)
    // Every port held at once, before the database opens (which can take seconds): a taken port,
    // or two of ours set to the same number, is one line now rather than after the others listened.
    yield* Effect.scoped(Effect.forEach(planned, ({ plan, port }) => plan.free(port, settings, options.name), { discard: true }))
    yield* Effect.logInfo(`${options.name}: database ${Database.describe(database)}`)
    yield* Effect.logInfo(
      `${options.name}: authentication ${
        Option.isSome(settings.apiToken)
          ? `by bearer token (API_TOKEN), schema documents ${settings.schemaAccess === "open" ? "open" : "behind it"} (SCHEMA_ACCESS)`
          : "off"
      }, ` +
        `CORS ${settings.corsOrigins.length === 0 ? "off" : `for ${settings.corsOrigins.join(", ")}`}, ` +
        `host names ${hostNamesShown(allowedHostNames(settings))}, ` +
        `OTLP export ${
          [settings.otlp.traces ? "traces" : "", settings.otlp.metrics ? "metrics" : ""].filter((each) => each !== "").join(" and ") ||
          "off"
        }`
    )
    const [first, ...others] = Arr.map(planned, ({ plan, port }) => plan.layer(port, settings, options.name))
    const served = Layer.mergeAll(first, ...others).pipe(
      Layer.provide(databaseLayer(options.name, database, policy)),
      // One for the process: its ports drain together, and count their Watch streams together.
      Layer.provide(Draining.Default(settings.shutdownDrainMillis)),
      Layer.provide(HealthWatches.layer(settings.maxHealthWatches))
    )
    // OpenTelemetry outlives the ports and the database: the last calls' spans and metrics are flushed at the end.
    const exported = settings.otlp.traces || settings.otlp.metrics
    if (!exported) return yield* Layer.launch(served)
    const { openTelemetryLayer } = yield* Effect.promise(() => import("./OpenTelemetry.js"))
    return yield* Layer.launch(served.pipe(Layer.provide(openTelemetryLayer(options.name, settings.otlp))))
  })
  ignoreEchoedSignals()
  runMain(options.name, start)
}
