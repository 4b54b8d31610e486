import * as HttpApi from "@effect/platform/HttpApi"

/** What `--help` says a process serves, read from the services it runs. */
export interface Offered {
  /** Its REST paths (`restPaths`), every port's. */
  readonly restPaths: ReadonlyArray<string>
  /** Whether one of its ports serves the console, which alone reads the `*_SERVICE_URL` settings. */
  readonly console: boolean
}

/** Words joined by ", ", wrapped to lines that start with `indent`. */
const wrapped = (words: ReadonlyArray<string>, indent: string, width = 100) => {
  const lines: Array<string> = []
  for (const word of words) {
    const last = lines[lines.length - 1]
    if (last !== undefined && last.length + word.length + 2 <= width) lines[lines.length - 1] = `${last}, ${word}`
    else lines.push(word)
  }
  return lines.map((line, i) => (i === lines.length - 1 ? line : `${line},`)).join(`\n${indent}`)
}

export const usage = (name: string, offered: Offered): string => `Usage: node dist/main/${name}.js

Serves ${name === "all" ? "the org, profile, license and workflow services, each on its own port" : `the ${name} service`}
Each port answers, over HTTP/1.1 and cleartext HTTP/2 on the one port:
  Connect (JSON and binary)   POST /<package>.<Service>/<Method> (GET for reads)
  gRPC and gRPC-Web           the same paths; gRPC server reflection v1 and v1alpha
  REST                        ${wrapped(offered.restPaths, "                              ")}
                              (described by the OpenAPI 3.1 document at GET /openapi.json)
  GraphQL                     POST or GET /graphql
  @effect/rpc                 POST /rpc
  health                      GET /healthz, GET /readyz, grpc.health.v1.Health
Every answer carries an x-request-id (the caller's, or a new one). Stops gracefully on SIGINT or SIGTERM.

Environment (each checked at start-up: a bad value stops the process with one line naming it;
unset or empty means the default; numbers are whole numbers, durations in milliseconds up to 2147483647):
  DATABASE_URL        postgres:// or postgresql:// URL${name === "all" ? "; unset: embedded database in DATA_DIR" : " (required)"}
  DATABASE_POOL_SIZE  connections in the pool, 1 to 1000 (default 10)
  MIGRATE             on: apply the migrations the database lacks at start-up; off: only check, and
                      refuse to start if one is lacking (run \`npm run migrate\` first) (default on)
${
  name === "all"
    ? "  DATA_DIR            embedded database directory, created if missing, locked while in use\n" +
      "                      (default ./.data; memory:// keeps nothing)\n"
    : ""
}  HOST                IP address or host name to bind (default 127.0.0.1)
  ALLOWED_HOSTS       comma-separated host names and addresses the ports answer to besides HOST and
                      localhost (bound to 0.0.0.0 or ::, the machine's own addresses and host name), or *
                      for any; another Host is answered 421 (the probes and gRPC health excepted)
${
  name === "all"
    ? "  ORG_PORT, PROFILE_PORT, LICENSE_PORT, WORKFLOW_PORT   ports (default 9090, 9091, 9092, 8081; PORT is not\n" +
      "                      read here: set, it is ignored with a warning)"
    : `  PORT                port, 1 to 65535 (default: ${name.toUpperCase()}_PORT, else the service's default)`
}
  MAX_BODY_BYTES      largest request body and gRPC message (default 1048576)
  SHUTDOWN_GRACE_MS   how long a shutdown waits for in-flight requests (default 10000)
  SHUTDOWN_DRAIN_MS   on SIGTERM, how long to go on serving while /readyz answers 503, before the
                      port stops accepting; behind a load balancer, longer than its checks take to
                      notice (default 0: none)
  API_TOKEN           require "Authorization: Bearer <token>" on every call but health and the pages;
                      visible ASCII, no spaces; never printed (default: off)
  SCHEMA_ACCESS       with API_TOKEN: open: the schema documents (GET /openapi.json, gRPC reflection,
                      GraphQL introspection alone) answer without the token; token: they need it too
                      (default open)
  SCHEMA_ACCESS_RATE  with SCHEMA_ACCESS=open: calls without the token a port lets through a second;
                      more get resource_exhausted, HTTP 429 (default 40)
  SCHEMA_ACCESS_RATE_PER_ADDRESS  of those, the calls from one address (default a quarter of SCHEMA_ACCESS_RATE)
  CORS_ORIGINS        comma-separated origins (https://app.example.com) allowed by CORS, or * (default: off)
${
  offered.console
    ? "  ORG_SERVICE_URL, PROFILE_SERVICE_URL, LICENSE_SERVICE_URL   where the console's browser reaches each\n" +
      "                      service (default: the console's host name at the service's port)\n"
    : ""
}  MAX_CONNECTIONS     open connections per port; one more closes the one worth least (no request
                      yet, then bodies awaited longest, then idle longest) or is refused (default 1024)
  MAX_CONNECTIONS_PER_ADDRESS of those, the most one client address may hold; more from it are refused;
                              0: no bound, as behind a balancer (default a quarter of MAX_CONNECTIONS)
  MAX_STREAMS_PER_CONNECTION  concurrent HTTP/2 streams per connection (default 100)
  MAX_REQUESTS_IN_FLIGHT      requests served at once per port; more get unavailable (default 1024)
  MAX_REQUESTS_AWAITING_BODY  of those, requests still receiving their body; one more refuses the
                              one waiting longest (default a quarter of MAX_REQUESTS_IN_FLIGHT)
  MAX_STREAM_RESETS           streams an HTTP/2 connection may reset in a burst (refilled at a tenth
                              a second) before GOAWAY ENHANCE_YOUR_CALM; 1 to 1000 (default 400)
  MAX_HEALTH_WATCHES          gRPC health Watch streams open at once in the process; more get
                              resource_exhausted (default 10000)
  HEALTH_CHECK_INTERVAL_MS    health answers probe the database at most this often (default 1000)
  HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, IDLE_TIMEOUT_MS   slow and idle clients (default 10000, 30000, 60000)
  GRAPHQL_MAX_DEPTH, GRAPHQL_MAX_FIELDS                     GraphQL operation bounds (default 8, 100; introspection apart)
  GRAPHQL_MAX_CALLS   service calls (fields at the root) one GraphQL operation may make (default 5)
  JSON_MAX_DEPTH, JSON_MAX_VALUES   nesting and values (object members and array elements) a JSON
                      request body may hold, in every style, checked before parsing (default 32, 1000)
  PROTOBUF_MAX_FIELDS fields one binary protobuf request message may hold, nested ones included (default 1000)
  DATABASE_CONNECT_TIMEOUT_MS   PostgreSQL: time to get a connection (default 3000)
  DATABASE_OPERATION_TIMEOUT_MS the most one unit of work may take, retries included (default 10000)
  DATABASE_POOL_MAX_WAITING     units of work that may wait for a connection; more get unavailable (default 1024)
  MIGRATION_LOCK_TIMEOUT_MS     the longest a migration waits for a lock before it gives way and tries again (default 1000)
  MIGRATION_DEADLINE_MS         how long migrations keep trying while other sessions hold their locks (default 600000)
  LOG_LEVEL           debug, info, warning (or warn) or error (default info); debug adds a failed start's details
  LOG_FORMAT          json (one object per line) or pretty (default: pretty on a terminal, else json)
  ACCESS_LOG          on or off: one log line per call, refusals included (default on)
  OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT  send traces over OTLP/HTTP (default: off)
  OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES                      the service in traces (default onboarding-<process>)
  OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG                     sampling (default parentbased_always_on)
  OTEL_EXPORTER_OTLP_METRICS_ENDPOINT, OTEL_METRIC_EXPORT_INTERVAL  send metrics over OTLP/HTTP too, every N ms (default 60000)
  OTEL_TRACES_EXPORTER, OTEL_METRICS_EXPORTER, OTEL_SDK_DISABLED     none / true turn each (or all) off
  OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, OTEL_EXPORTER_OTLP_METRICS_PROTOCOL
                      http/protobuf (the only one taken)`


export const migrateUsage = `Usage: node dist/main/migrate.js   (npm run migrate)

Applies the schema migrations the database lacks, then exits: 0 when the schema is up to date,
1 with one line on stderr when it cannot be. A deploy step, run before a new version starts; the
services can then run with MIGRATE=off. Beside other runs, one applies and the others wait and
find nothing left to do. While services run: a migration never queues their statements for longer
than MIGRATION_LOCK_TIMEOUT_MS. When a session holds a lock it needs (one idle in a transaction,
say), it gives way, logs who holds the lock, and tries again, for up to MIGRATION_DEADLINE_MS; then
it fails naming that session. Locks it does get are held until it commits: a migration that
rewrites a large table (a column with a volatile default, an index built without CONCURRENTLY)
blocks that table's writes while it runs, and wants a quiet window.

Environment:
  DATABASE_URL        postgres:// or postgresql:// URL; unset: the embedded database in DATA_DIR
  DATA_DIR            embedded database directory (default ./.data), locked while in use
  DATABASE_CONNECT_TIMEOUT_MS   how long to wait for PostgreSQL (default 3000)
  MIGRATION_LOCK_TIMEOUT_MS     the longest one try waits for a lock (default 1000)
  MIGRATION_DEADLINE_MS         how long it keeps trying while others hold its locks (default 600000)
  LOG_LEVEL, LOG_FORMAT         as for the services`

/**
 * A REST API's paths as a person reads them (`/orgs/{id}`), each once, in the API's order: what
 * `--help` lists, read from the API declaration itself so that it cannot name another service's.
 */
export const restPaths = (api: HttpApi.HttpApi.Any): ReadonlyArray<string> => {
  const paths: Array<string> = []
  HttpApi.reflect(api as HttpApi.HttpApi<string, never, never, never>, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      const path = endpoint.path.replace(/:(\w+)/g, "{$1}")
      if (!paths.includes(path)) paths.push(path)
    }
  })
  return paths
}
