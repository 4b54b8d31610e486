import { Config, Option, Redacted } from "effect"
import { type DatabaseOptions, defaultMaxWaiting, inMemory, type SchemaPolicy, withPasswordMasked } from "../services/database/Database.js"
import { oneOf, optionalVariable, positive, shown, variable, wholeNumber } from "./Variables.js"

/** What pg (through pg-connection-string) can use: a URL with the postgres scheme. */
const postgresUrl = (text: string): Redacted.Redacted | undefined => {
  // pg reads `postgres://user@/db?host=/run/postgresql` (no host: a socket) with a stand-in host.
  for (const candidate of [text, text.replace("@/", "@localhost/")]) {
    try {
      const url = new URL(candidate)
      return url.protocol === "postgres:" || url.protocol === "postgresql:" ? Redacted.make(text) : undefined
    } catch {
      // not a URL as written; try the stand-in
    }
  }
  return undefined
}

/** Other schemes (`file://`, `idb://`) would be handed to PGlite, which takes them as something else. */
const dataDirectory = (text: string): string | undefined =>
  text === inMemory || !/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : undefined

/** `DATABASE_URL` selects PostgreSQL; without it the embedded database lives in `DATA_DIR`. */
export const databaseOptions: Config.Config<DatabaseOptions> = Config.all({
  url: optionalVariable(
    "DATABASE_URL",
    "must be a postgres:// or postgresql:// URL",
    postgresUrl,
    (text) => shown(withPasswordMasked(text))
  ),
  poolSize: wholeNumber("DATABASE_POOL_SIZE", 10, 1, 1000),
  connectTimeoutMillis: positive("DATABASE_CONNECT_TIMEOUT_MS", 3_000),
  operationTimeoutMillis: positive("DATABASE_OPERATION_TIMEOUT_MS", 10_000),
  maxWaiting: wholeNumber("DATABASE_POOL_MAX_WAITING", defaultMaxWaiting, 0, 1_000_000),
  dataDir: variable("DATA_DIR", "./.data", `must be a directory path, or ${inMemory}`, dataDirectory),
  migrationLockTimeoutMillis: positive("MIGRATION_LOCK_TIMEOUT_MS", 1_000),
  migrationDeadlineMillis: positive("MIGRATION_DEADLINE_MS", 600_000)
}).pipe(
  Config.map(({ connectTimeoutMillis, dataDir, maxWaiting, migrationDeadlineMillis, migrationLockTimeoutMillis, operationTimeoutMillis, poolSize, url }): DatabaseOptions => {
    const migrationLockWaits = { lockTimeoutMillis: migrationLockTimeoutMillis, deadlineMillis: migrationDeadlineMillis }
    return Option.isSome(url)
      ? { kind: "postgres", url: url.value, poolSize, connectTimeoutMillis, operationTimeoutMillis, maxWaiting, migrationLockWaits }
      : { kind: "embedded", dataDir, operationTimeoutMillis, maxWaiting, migrationLockWaits }
  })
)

/**
 * `MIGRATE=off`: the process applies no migration at start-up, and refuses to start when the
 * database lacks one (a deploy step runs `npm run migrate` first). On by default.
 */
export const schemaPolicy: Config.Config<SchemaPolicy> = oneOf("MIGRATE", "on", ["on", "off"] as const).pipe(
  Config.map((value) => (value === "on" ? "apply" : "verify"))
)
