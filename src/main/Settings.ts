import { Config, Option, type Redacted } from "effect"

/** What a process reads from its environment, besides the database (see services/Database). */
export interface Settings {
  readonly host: string
  readonly readMaxBytes: number
  readonly shutdownGraceMillis: number
  readonly apiToken: Option.Option<Redacted.Redacted>
  readonly corsOrigins: ReadonlyArray<string>
  readonly maxConnections: number
  readonly headersTimeoutMillis: number
  readonly requestTimeoutMillis: number
  readonly idleTimeoutMillis: number
  readonly graphqlMaxDepth: number
  readonly graphqlMaxFields: number
}

const positive = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.withDefault(fallback),
    Config.validate({ message: `${name} must be a positive whole number`, validation: (n) => n > 0 })
  )

export const settings: Config.Config<Settings> = Config.all({
  host: Config.string("HOST").pipe(Config.withDefault("127.0.0.1")),
  readMaxBytes: positive("MAX_BODY_BYTES", 1024 * 1024),
  shutdownGraceMillis: positive("SHUTDOWN_GRACE_MS", 10_000),
  apiToken: Config.option(Config.redacted("API_TOKEN")),
  corsOrigins: Config.string("CORS_ORIGINS").pipe(
    Config.withDefault(""),
    Config.map((list) => list.split(",").map((origin) => origin.trim()).filter((origin) => origin !== ""))
  ),
  maxConnections: positive("MAX_CONNECTIONS", 1024),
  headersTimeoutMillis: positive("HEADERS_TIMEOUT_MS", 10_000),
  requestTimeoutMillis: positive("REQUEST_TIMEOUT_MS", 30_000),
  idleTimeoutMillis: positive("IDLE_TIMEOUT_MS", 60_000),
  graphqlMaxDepth: positive("GRAPHQL_MAX_DEPTH", 8),
  graphqlMaxFields: positive("GRAPHQL_MAX_FIELDS", 100)
})

/** The defaults, for code that runs a port without an environment to read (tests). */
export const defaultSettings: Settings = {
  host: "127.0.0.1",
  readMaxBytes: 1024 * 1024,
  shutdownGraceMillis: 10_000,
  apiToken: Option.none(),
  corsOrigins: [],
  maxConnections: 1024,
  headersTimeoutMillis: 10_000,
  requestTimeoutMillis: 30_000,
  idleTimeoutMillis: 60_000,
  graphqlMaxDepth: 8,
  graphqlMaxFields: 100
}

/** A service's port in the all-in-one process: its own variable, or the design's default. */
export const servicePort = (variable: string, fallback: number): Config.Config<number> =>
  Config.port(variable).pipe(Config.withDefault(fallback))

/** In a process of its own a service also takes the conventional `PORT`. */
export const dedicatedPort = (variable: string, fallback: number): Config.Config<number> =>
  Config.port("PORT").pipe(Config.orElse(() => servicePort(variable, fallback)))
