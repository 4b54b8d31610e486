import { Config, ConfigError, ConfigProvider, Context, Effect, Either, Layer, Option, Redacted } from "effect"
import { type SchemaAccess, schemaAccessValues } from "../transports/http/BearerAuth.js"
import { type OtlpExport, otlpExport } from "./OtlpSettings.js"
import {
  host,
  hostNames,
  maxTimerMillis,
  oneOf,
  originUrl,
  origins,
  port,
  positive,
  refusal,
  shareOf,
  wholeNumber
} from "./Variables.js"

/**
 * What a process reads from its environment, besides the database (see DatabaseSettings). Each
 * variable is checked by its rule (see Variables): a new one is a field here and a line in
 * `settings` (`positive("NAME", default)` for a count or a duration in ms).
 */
export interface SettingsValues {
  readonly host: string
  /**
   * ALLOWED_HOSTS: the host names (and addresses) the ports answer to besides their defaults
   * (AllowedHostNames.ts), or any (`*`).
   */
  readonly allowedHosts: { readonly any: boolean; readonly names: ReadonlyArray<string> }
  readonly readMaxBytes: number
  readonly shutdownGraceMillis: number
  /** On SIGTERM, how long to go on serving while saying not ready, before the ports close (0: none). */
  readonly shutdownDrainMillis: number
  readonly apiToken: Option.Option<Redacted.Redacted>
  /**
   * SCHEMA_ACCESS: whether the schema documents (`/openapi.json`, gRPC server reflection, GraphQL
   * introspection) are answered without the token (`open`, like the pages) or only with it (`token`).
   */
  readonly schemaAccess: SchemaAccess
  /** Under SCHEMA_ACCESS=open, the calls without the token one port lets through a second (TokenlessRate.ts). */
  readonly schemaAccessRate: number
  /** Of those, the calls one peer address may make a second. */
  readonly schemaAccessRatePerAddress: number
  readonly corsOrigins: ReadonlyArray<string>
  readonly maxConnections: number
  /** Of MAX_CONNECTIONS, the places one peer address may hold on a port (0, or all of them: no bound). */
  readonly maxConnectionsPerAddress: number
  readonly headersTimeoutMillis: number
  readonly requestTimeoutMillis: number
  readonly idleTimeoutMillis: number
  readonly graphqlMaxDepth: number
  readonly graphqlMaxFields: number
  /** Service calls (fields at the root, aliases included) one GraphQL operation may make. */
  readonly graphqlMaxCalls: number
  /** Nesting and values a JSON request body may hold, counted before it is parsed (JsonBounds). */
  readonly jsonMaxDepth: number
  readonly jsonMaxValues: number
  /** Fields one binary protobuf request message may hold, nested messages' included, counted before it is decoded. */
  readonly protobufMaxFields: number
  readonly maxStreamsPerConnection: number
  readonly maxRequestsInFlight: number
  /** Of MAX_REQUESTS_IN_FLIGHT, the places calls still waiting for their body may hold on a port. */
  readonly maxRequestsAwaitingBody: number
  /** Streams one HTTP/2 connection may reset in a burst before it is sent GOAWAY ENHANCE_YOUR_CALM. */
  readonly maxStreamResets: number
  /** gRPC health Watch streams open at once in the process, all its ports together. */
  readonly maxHealthWatches: number
  readonly healthCheckIntervalMillis: number
  /** One log line per call (ACCESS_LOG=off turns them off). */
  readonly accessLog: boolean
  /** What OpenTelemetry's variables ask to be sent over OTLP (see OpenTelemetry). */
  readonly otlp: OtlpExport
  /**
   * Where a browser reaches the org, profile and license services, for the console the workflow
   * service serves (`ORG_SERVICE_URL`, ...): unset, the same host name as the console, at the
   * port that service has in this process, or else its default port.
   */
  readonly serviceUrls: { readonly [service: string]: Option.Option<string> }
  /** The port of each service this process serves (set by the process, not read). */
  readonly processPorts: { readonly [service: string]: number }
}

/**
 * Unset means authentication off, so a token that cannot work (empty, say, from a missing secret)
 * stops the process instead of silently turning authentication off. The value is never shown.
 */
const apiToken = Config.option(Config.string("API_TOKEN")).pipe(
  Config.mapOrFail((token) =>
    Option.isSome(token) && !/^[\x21-\x7e]+$/.test(token.value)
      ? Either.left<ConfigError.ConfigError>(
        refusal("API_TOKEN", undefined, "must be visible ASCII characters without spaces (unset it to turn authentication off)")
      )
      : Either.right(Option.map(token, Redacted.make))
  )
)

const maxRequestsInFlight = positive("MAX_REQUESTS_IN_FLIGHT", 1024)
const schemaAccessRate = positive("SCHEMA_ACCESS_RATE", 40)
const maxConnections = positive("MAX_CONNECTIONS", 1024)

export const settings: Config.Config<SettingsValues> = Config.all({
  host: host("HOST", "127.0.0.1"),
  allowedHosts: hostNames("ALLOWED_HOSTS"),
  readMaxBytes: positive("MAX_BODY_BYTES", 1024 * 1024),
  shutdownGraceMillis: positive("SHUTDOWN_GRACE_MS", 10_000),
  shutdownDrainMillis: wholeNumber("SHUTDOWN_DRAIN_MS", 0, 0, maxTimerMillis),
  apiToken,
  schemaAccess: oneOf("SCHEMA_ACCESS", "open", schemaAccessValues),
  schemaAccessRate,
  // A quarter by default: one address flooding the port leaves three quarters to the others.
  schemaAccessRatePerAddress: shareOf("SCHEMA_ACCESS_RATE_PER_ADDRESS", schemaAccessRate, "SCHEMA_ACCESS_RATE", (rate) =>
    Math.max(1, Math.floor(rate / 4))),
  corsOrigins: origins("CORS_ORIGINS"),
  maxConnections,
  // A quarter by default: one address (one client, or one attacker) leaves three quarters of the port to the rest.
  maxConnectionsPerAddress: shareOf("MAX_CONNECTIONS_PER_ADDRESS", maxConnections, "MAX_CONNECTIONS", (places) =>
    Math.max(1, Math.floor(places / 4)), 0),
  headersTimeoutMillis: positive("HEADERS_TIMEOUT_MS", 10_000),
  requestTimeoutMillis: positive("REQUEST_TIMEOUT_MS", 30_000),
  idleTimeoutMillis: positive("IDLE_TIMEOUT_MS", 60_000),
  graphqlMaxDepth: positive("GRAPHQL_MAX_DEPTH", 8),
  graphqlMaxFields: positive("GRAPHQL_MAX_FIELDS", 100),
  graphqlMaxCalls: positive("GRAPHQL_MAX_CALLS", 5),
  jsonMaxDepth: positive("JSON_MAX_DEPTH", 32),
  jsonMaxValues: positive("JSON_MAX_VALUES", 1_000),
  protobufMaxFields: positive("PROTOBUF_MAX_FIELDS", 1_000),
  maxStreamsPerConnection: positive("MAX_STREAMS_PER_CONNECTION", 100),
  maxRequestsInFlight,
  // A quarter by default: slow bodies an attacker keeps open leave three quarters of the port to the rest.
  maxRequestsAwaitingBody: shareOf("MAX_REQUESTS_AWAITING_BODY", maxRequestsInFlight, "MAX_REQUESTS_IN_FLIGHT", (places) =>
    Math.max(1, Math.floor(places / 4))),
  // At most 1000: past it, nghttp2's own limit (a burst of 1000) ends the connection first, as an INTERNAL_ERROR.
  maxStreamResets: wholeNumber("MAX_STREAM_RESETS", 400, 1, 1000),
  maxHealthWatches: positive("MAX_HEALTH_WATCHES", 10_000),
  healthCheckIntervalMillis: positive("HEALTH_CHECK_INTERVAL_MS", 1_000),
  accessLog: oneOf("ACCESS_LOG", "on", ["on", "off"] as const).pipe(Config.map((value) => value === "on")),
  otlp: otlpExport,
  serviceUrls: Config.all({
    org: originUrl("ORG_SERVICE_URL"),
    profile: originUrl("PROFILE_SERVICE_URL"),
    license: originUrl("LICENSE_SERVICE_URL")
  }),
  processPorts: Config.succeed({})
})

/**
 * The defaults, for code that runs a port without an environment to read (tests): `settings` read
 * from an empty environment, so each default is written once, beside its variable.
 */
export const defaultSettings: SettingsValues = Effect.runSync(
  Effect.withConfigProvider(settings, ConfigProvider.fromMap(new Map()))
)

/**
 * The settings a port runs with, as a service: read once, in main, from the environment
 * (`Settings.layer(values)` with what `settings` read), or the defaults with overrides in tests.
 */
export class Settings extends Context.Tag("Settings")<Settings, SettingsValues>() {
  static readonly layer = (values: SettingsValues) => Layer.succeed(Settings, values)
  static readonly defaultsWith = (overrides: Partial<SettingsValues>) => Settings.layer({ ...defaultSettings, ...overrides })
}

/** A service's port in the all-in-one process: its own variable, or the design's default. */
export const servicePort = (variable: string, fallback: number): Config.Config<number> =>
  port(variable).pipe(Config.map(Option.getOrElse(() => fallback)))

/** In a process of its own a service also takes the conventional `PORT`, which wins when set. */
export const dedicatedPort = (variable: string, fallback: number): Config.Config<number> =>
  Config.all([port("PORT"), servicePort(variable, fallback)]).pipe(
    Config.map(([conventional, own]) => Option.getOrElse(conventional, () => own))
  )

