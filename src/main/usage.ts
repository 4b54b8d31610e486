export const usage = (name: string): string => `Usage: node dist/main/${name}.js

Serves ${name === "all" ? "the org, profile, license and workflow services, each on its own port" : `the ${name} service`}
in Connect (JSON and binary), gRPC, gRPC-Web, with gRPC health and reflection, /healthz and /readyz.
Stops gracefully on SIGINT or SIGTERM.

Environment:
  DATABASE_URL        PostgreSQL connection string${name === "all" ? "; unset: embedded database in DATA_DIR" : " (required)"}
  DATABASE_POOL_SIZE  connections in the pool (default 10)
${name === "all" ? "  DATA_DIR            embedded database directory (default ./.data; memory:// keeps nothing)\n" : ""}  HOST                address to bind (default 127.0.0.1)
${
  name === "all"
    ? "  ORG_PORT, PROFILE_PORT, LICENSE_PORT, WORKFLOW_PORT   ports (default 9090, 9091, 9092, 8081)"
    : `  PORT                port (default: ${name.toUpperCase()}_PORT, else the service's default)`
}
  MAX_BODY_BYTES      largest request body (default 1048576)
  SHUTDOWN_GRACE_MS   how long a shutdown waits for in-flight requests (default 10000)`
