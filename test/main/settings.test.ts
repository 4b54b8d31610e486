import { describe, expect, it } from "@effect/vitest"
import { Cause, Config, ConfigProvider, Effect, LogLevel, Option, Redacted } from "effect"
import { databaseOptions, schemaPolicy } from "../../src/main/DatabaseSettings.js"
import { MigrationLockWaits } from "../../src/services/database/Migrations.js"
import { logLevel } from "../../src/main/Logging.js"
import { dedicatedPort, servicePort, settings } from "../../src/main/Settings.js"
import { startupLine } from "../../src/main/StartupFailure.js"
import { withPasswordMasked } from "../../src/services/database/Database.js"

/** Everything a per-service org process reads, in the order it reads it. */
const orgProcess = Config.all([logLevel, settings, databaseOptions, schemaPolicy, dedicatedPort("ORG_PORT", 9090)])

const read = <A>(config: Config.Config<A>, environment: Record<string, string>) =>
  Effect.withConfigProvider(config, ConfigProvider.fromMap(new Map(Object.entries(environment))))

/** The line the org process would print for this environment. */
const refusal = (environment: Record<string, string>) =>
  read(orgProcess, environment).pipe(Effect.flip, Effect.map((error) => startupLine("org", Cause.fail(error))))

const whole = (name: string, value: string, max = 2_147_483_647, min = 1) =>
  `org: ${name}=${value} is not valid: must be a whole number from ${min} to ${max}`

const refused: ReadonlyArray<readonly [Record<string, string>, string]> = [
  [{ PORT: "abc" }, "org: PORT=abc is not valid: must be a whole number from 1 to 65535"],
  [{ PORT: "99999" }, "org: PORT=99999 is not valid: must be a whole number from 1 to 65535"],
  [{ PORT: "80.5" }, "org: PORT=80.5 is not valid: must be a whole number from 1 to 65535"],
  // A bad ORG_PORT is refused even when PORT wins: it is a mistake either way.
  [{ PORT: "8080", ORG_PORT: "0" }, "org: ORG_PORT=0 is not valid: must be a whole number from 1 to 65535"],
  [{ DATABASE_POOL_SIZE: "-1" }, whole("DATABASE_POOL_SIZE", "-1", 1000)],
  [{ DATABASE_POOL_SIZE: "5000" }, whole("DATABASE_POOL_SIZE", "5000", 1000)],
  [{ DATABASE_POOL_MAX_WAITING: "many" }, whole("DATABASE_POOL_MAX_WAITING", "many", 1_000_000, 0)],
  [{ MIGRATION_LOCK_TIMEOUT_MS: "0" }, whole("MIGRATION_LOCK_TIMEOUT_MS", "0")],
  [{ MIGRATION_DEADLINE_MS: "10m" }, whole("MIGRATION_DEADLINE_MS", "10m")],
  [{ SHUTDOWN_GRACE_MS: "0" }, whole("SHUTDOWN_GRACE_MS", "0")],
  // 0 is allowed (no drain, the default); a negative or fractional one is not.
  [{ SHUTDOWN_DRAIN_MS: "-1" }, whole("SHUTDOWN_DRAIN_MS", "-1", 2_147_483_647, 0)],
  [{ SHUTDOWN_DRAIN_MS: "1.5" }, whole("SHUTDOWN_DRAIN_MS", "1.5", 2_147_483_647, 0)],
  [{ MAX_BODY_BYTES: "1MB" }, whole("MAX_BODY_BYTES", "1MB")],
  [{ MAX_CONNECTIONS: "+10" }, whole("MAX_CONNECTIONS", "+10")],
  [{ HEADERS_TIMEOUT_MS: "0x10" }, whole("HEADERS_TIMEOUT_MS", "0x10")],
  [{ REQUEST_TIMEOUT_MS: "2147483648" }, whole("REQUEST_TIMEOUT_MS", "2147483648")],
  [{ IDLE_TIMEOUT_MS: "Infinity" }, whole("IDLE_TIMEOUT_MS", "Infinity")],
  [{ GRAPHQL_MAX_DEPTH: "0" }, whole("GRAPHQL_MAX_DEPTH", "0")],
  [{ GRAPHQL_MAX_FIELDS: "many" }, whole("GRAPHQL_MAX_FIELDS", "many")],
  [{ GRAPHQL_MAX_CALLS: "0" }, whole("GRAPHQL_MAX_CALLS", "0")],
  [{ JSON_MAX_DEPTH: "-1" }, whole("JSON_MAX_DEPTH", "-1")],
  [{ JSON_MAX_VALUES: "1e3" }, whole("JSON_MAX_VALUES", "1e3")],
  [{ PROTOBUF_MAX_FIELDS: "unbounded" }, whole("PROTOBUF_MAX_FIELDS", "unbounded")],
  // A share of MAX_REQUESTS_IN_FLIGHT: the rule names that variable and its value.
  [{ MAX_REQUESTS_AWAITING_BODY: "0" }, "org: MAX_REQUESTS_AWAITING_BODY=0 is not valid: must be a whole number from 1 to MAX_REQUESTS_IN_FLIGHT (1024)"],
  [
    { MAX_REQUESTS_IN_FLIGHT: "100", MAX_REQUESTS_AWAITING_BODY: "200" },
    "org: MAX_REQUESTS_AWAITING_BODY=200 is not valid: must be a whole number from 1 to MAX_REQUESTS_IN_FLIGHT (100)"
  ],
  [{ MAX_REQUESTS_AWAITING_BODY: "half" }, "org: MAX_REQUESTS_AWAITING_BODY=half is not valid: must be a whole number from 1 to MAX_REQUESTS_IN_FLIGHT (1024)"],
  [{ SCHEMA_ACCESS_RATE: "0" }, whole("SCHEMA_ACCESS_RATE", "0")],
  // A share of SCHEMA_ACCESS_RATE: the rule names that variable and its value.
  [{ SCHEMA_ACCESS_RATE_PER_ADDRESS: "41" }, "org: SCHEMA_ACCESS_RATE_PER_ADDRESS=41 is not valid: must be a whole number from 1 to SCHEMA_ACCESS_RATE (40)"],
  [
    { SCHEMA_ACCESS_RATE: "100", SCHEMA_ACCESS_RATE_PER_ADDRESS: "1.5" },
    "org: SCHEMA_ACCESS_RATE_PER_ADDRESS=1.5 is not valid: must be a whole number from 1 to SCHEMA_ACCESS_RATE (100)"
  ],
  // A share of MAX_CONNECTIONS, 0 allowed (no bound per address).
  [{ MAX_CONNECTIONS_PER_ADDRESS: "-1" }, "org: MAX_CONNECTIONS_PER_ADDRESS=-1 is not valid: must be a whole number from 0 to MAX_CONNECTIONS (1024)"],
  [
    { MAX_CONNECTIONS: "100", MAX_CONNECTIONS_PER_ADDRESS: "101" },
    "org: MAX_CONNECTIONS_PER_ADDRESS=101 is not valid: must be a whole number from 0 to MAX_CONNECTIONS (100)"
  ],
  [{ MAX_STREAM_RESETS: "5000" }, whole("MAX_STREAM_RESETS", "5000", 1000)],
  [{ MAX_STREAM_RESETS: "0" }, whole("MAX_STREAM_RESETS", "0", 1000)],
  [{ DATABASE_CONNECT_TIMEOUT_MS: "3s" }, whole("DATABASE_CONNECT_TIMEOUT_MS", "3s")],
  [{ DATABASE_OPERATION_TIMEOUT_MS: "-1" }, whole("DATABASE_OPERATION_TIMEOUT_MS", "-1")],
  [{ DATABASE_URL: "not a url" }, `org: DATABASE_URL="not a url" is not valid: must be a postgres:// or postgresql:// URL`],
  [
    { DATABASE_URL: "mysql://root:hunter2@db/onboarding" },
    "org: DATABASE_URL=mysql://root:***@db/onboarding is not valid: must be a postgres:// or postgresql:// URL"
  ],
  [
    { DATABASE_URL: "postgres://app:s3cret@db:port/onboarding" },
    "org: DATABASE_URL=postgres://app:***@db:port/onboarding is not valid: must be a postgres:// or postgresql:// URL"
  ],
  [{ DATA_DIR: "idb://onboarding" }, "org: DATA_DIR=idb://onboarding is not valid: must be a directory path, or memory://"],
  [{ HOST: "local host" }, `org: HOST="local host" is not valid: must be an IP address or a host name`],
  [{ HOST: "-x.example" }, "org: HOST=-x.example is not valid: must be an IP address or a host name"],
  [{ ALLOWED_HOSTS: "https://api.example.com" }, "org: ALLOWED_HOSTS=https://api.example.com is not valid: must be * or comma-separated host names or IP addresses, without scheme or port (api.example.com,10.0.0.5)"],
  [{ ALLOWED_HOSTS: "api.example.com:443" }, "org: ALLOWED_HOSTS=api.example.com:443 is not valid: must be * or comma-separated host names or IP addresses, without scheme or port (api.example.com,10.0.0.5)"],
  [{ ALLOWED_HOSTS: "a.example,*.example.com" }, "org: ALLOWED_HOSTS=a.example,*.example.com is not valid: must be * or comma-separated host names or IP addresses, without scheme or port (api.example.com,10.0.0.5)"],
  [
    { CORS_ORIGINS: "https://app.example.com,app.example.org" },
    "org: CORS_ORIGINS=https://app.example.com,app.example.org is not valid: must be * or comma-separated origins " +
    "such as https://app.example.com (scheme, host and port only)"
  ],
  [{ LOG_LEVEL: "trace" }, "org: LOG_LEVEL=trace is not valid: must be one of debug, info, warning, warn, error"],
  [{ ACCESS_LOG: "no" }, "org: ACCESS_LOG=no is not valid: must be one of on, off"],
  [{ MIGRATE: "auto" }, "org: MIGRATE=auto is not valid: must be one of on, off"],
  [
    { OTEL_TRACES_SAMPLER: "sometimes" },
    "org: OTEL_TRACES_SAMPLER=sometimes is not valid: must be one of always_on, always_off, traceidratio, " +
    "parentbased_always_on, parentbased_always_off, parentbased_traceidratio"
  ],
  [{ OTEL_TRACES_SAMPLER_ARG: "1.5" }, "org: OTEL_TRACES_SAMPLER_ARG=1.5 is not valid: must be a number from 0 to 1"],
  [
    { OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" },
    "org: OTEL_EXPORTER_OTLP_ENDPOINT=collector:4318 is not valid: must be an http:// or https:// URL"
  ],
  [
    { OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" },
    "org: OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not valid: must be one of http/protobuf"
  ]
]

describe("settings: a value that breaks its rule is refused in one line", () => {
  for (const [environment, line] of refused) {
    it.effect(`${Object.entries(environment).map(([k, v]) => `${k}=${v}`).join(" ")}`, () =>
      Effect.gen(function*() {
        expect(yield* refusal(environment)).toBe(line)
      }))
  }

  it.effect("API_TOKEN is never shown: neither an empty one nor one with spaces", () =>
    Effect.gen(function*() {
      for (const token of ["", "secret with spaces", "tøken"]) {
        const line = yield* refusal({ API_TOKEN: token })
        expect(line).toBe(
          "org: API_TOKEN (value not shown) is not valid: must be visible ASCII characters without spaces " +
            "(unset it to turn authentication off)"
        )
      }
    }))

  it.effect("a long value is cut, and control characters are escaped, so the line stays one line", () =>
    Effect.gen(function*() {
      const line = yield* refusal({ HOST: `evil\nhost${"x".repeat(200)}` })
      expect(line.split("\n")).toHaveLength(1)
      expect(line.length).toBeLessThan(200)
    }))
})

describe("a connection string in logs and messages", () => {
  it("has its password masked, in the authority or as a query parameter, parsable or not", () => {
    expect(withPasswordMasked("postgres://app:s3cret@db:5432/onboarding")).toBe("postgres://app:***@db:5432/onboarding")
    expect(withPasswordMasked("postgres://app@db/onboarding?sslmode=require&password=s3cret")).toBe(
      "postgres://app@db/onboarding?sslmode=require&password=***"
    )
    expect(withPasswordMasked("postgres://app:p@ss/w0rd@db:port/x")).toBe("postgres://app:***@db:port/x")
    expect(withPasswordMasked("postgres://app@db/onboarding")).toBe("postgres://app@db/onboarding")
  })
})

describe("settings: what is accepted", () => {
  it.effect("LOG_LEVEL takes warn as well as warning, in any case", () =>
    Effect.gen(function*() {
      for (const value of ["warn", "WARN", "warning"]) {
        expect(yield* read(logLevel, { LOG_LEVEL: value })).toBe(LogLevel.Warning)
      }
    }))

  it.effect("unset and empty both mean the default", () =>
    Effect.gen(function*() {
      const [, unset, databaseUnset, policyUnset, portUnset] = yield* read(orgProcess, {})
      const [, empty, databaseEmpty, policyEmpty, portEmpty] = yield* read(orgProcess, {
        MIGRATE: "",
        HOST: "",
        MAX_BODY_BYTES: "",
        DATABASE_URL: "",
        PORT: "",
        ORG_PORT: ""
      })
      expect(empty).toEqual(unset)
      expect(databaseEmpty).toEqual(databaseUnset)
      expect(databaseUnset).toEqual({
        kind: "embedded",
        dataDir: "./.data",
        operationTimeoutMillis: 10_000,
        maxWaiting: 1024,
        migrationLockWaits: MigrationLockWaits.defaultValue()
      })
      expect([portUnset, portEmpty]).toEqual([9090, 9090])
      expect([policyUnset, policyEmpty]).toEqual(["apply", "apply"])
    }))

  it.effect("MAX_REQUESTS_AWAITING_BODY is a quarter of MAX_REQUESTS_IN_FLIGHT unless set, and at most all of it", () =>
    Effect.gen(function*() {
      const places = (environment: Record<string, string>) =>
        read(settings, environment).pipe(Effect.map((read) => [read.maxRequestsInFlight, read.maxRequestsAwaitingBody]))
      expect(yield* places({})).toEqual([1024, 256])
      expect(yield* places({ MAX_REQUESTS_IN_FLIGHT: "100" })).toEqual([100, 25])
      expect(yield* places({ MAX_REQUESTS_IN_FLIGHT: "3" })).toEqual([3, 1])
      expect(yield* places({ MAX_REQUESTS_IN_FLIGHT: "100", MAX_REQUESTS_AWAITING_BODY: "100" })).toEqual([100, 100])
      expect(yield* places({ MAX_REQUESTS_AWAITING_BODY: "" })).toEqual([1024, 256])
    }))

  it.effect("SCHEMA_ACCESS_RATE_PER_ADDRESS is a quarter of SCHEMA_ACCESS_RATE unless set, and at most all of it", () =>
    Effect.gen(function*() {
      const rates = (environment: Record<string, string>) =>
        read(settings, environment).pipe(Effect.map((read) => [read.schemaAccessRate, read.schemaAccessRatePerAddress]))
      expect(yield* rates({})).toEqual([40, 10])
      expect(yield* rates({ SCHEMA_ACCESS_RATE: "3" })).toEqual([3, 1])
      expect(yield* rates({ SCHEMA_ACCESS_RATE: "100", SCHEMA_ACCESS_RATE_PER_ADDRESS: "100" })).toEqual([100, 100])
    }))

  it.effect("MAX_CONNECTIONS_PER_ADDRESS is a quarter of MAX_CONNECTIONS unless set; 0 and all of it are allowed", () =>
    Effect.gen(function*() {
      const places = (environment: Record<string, string>) =>
        read(settings, environment).pipe(Effect.map((read) => [read.maxConnections, read.maxConnectionsPerAddress]))
      expect(yield* places({})).toEqual([1024, 256])
      expect(yield* places({ MAX_CONNECTIONS: "10" })).toEqual([10, 2])
      expect(yield* places({ MAX_CONNECTIONS: "3" })).toEqual([3, 1])
      expect(yield* places({ MAX_CONNECTIONS_PER_ADDRESS: "0" })).toEqual([1024, 0])
      expect(yield* places({ MAX_CONNECTIONS: "100", MAX_CONNECTIONS_PER_ADDRESS: "100" })).toEqual([100, 100])
    }))

  it.effect("PORT wins over the service's own variable; the all-in-one process reads only its own", () =>
    Effect.gen(function*() {
      expect(yield* read(dedicatedPort("ORG_PORT", 9090), { PORT: "7000", ORG_PORT: "7001" })).toBe(7000)
      expect(yield* read(dedicatedPort("ORG_PORT", 9090), { ORG_PORT: "7001" })).toBe(7001)
      expect(yield* read(servicePort("ORG_PORT", 9090), { PORT: "abc" })).toBe(9090)
    }))

  it.effect("PostgreSQL URLs of both schemes, a socket URL, IPv6 and host names", () =>
    Effect.gen(function*() {
      for (
        const url of [
          "postgres://app:secret@db.internal:5432/onboarding?sslmode=require",
          "postgresql://app@[::1]:5432/onboarding",
          "postgres://app@/onboarding?host=/run/postgresql"
        ]
      ) {
        const options = yield* read(databaseOptions, { DATABASE_URL: url })
        expect(options.kind === "postgres" && Redacted.value(options.url)).toBe(url)
      }
      for (const host of ["0.0.0.0", "::", "localhost", "api.example.com"]) {
        expect((yield* read(settings, { HOST: host })).host).toBe(host)
      }
    }))

  it.effect("ALLOWED_HOSTS: names and addresses as a Host header writes them, or * for any", () =>
    Effect.gen(function*() {
      expect((yield* read(settings, {})).allowedHosts).toEqual({ any: false, names: [] })
      expect((yield* read(settings, { ALLOWED_HOSTS: " API.Example.com, 10.0.0.5,[::1], ::2, api.example.com " })).allowedHosts).toEqual({
        any: false,
        names: ["api.example.com", "10.0.0.5", "[::1]", "[::2]"]
      })
      expect((yield* read(settings, { ALLOWED_HOSTS: "*" })).allowedHosts).toEqual({ any: true, names: [] })
    }))

  it.effect("CORS origins, API_TOKEN kept secret", () =>
    Effect.gen(function*() {
      const read1 = yield* read(settings, { CORS_ORIGINS: " https://a.example.com, http://localhost:5173 ", API_TOKEN: "t0k3n" })
      expect(read1.corsOrigins).toEqual(["https://a.example.com", "http://localhost:5173"])
      expect(Option.map(read1.apiToken, Redacted.value)).toEqual(Option.some("t0k3n"))
      expect((yield* read(settings, { CORS_ORIGINS: "*" })).corsOrigins).toEqual(["*"])
    }))
})
