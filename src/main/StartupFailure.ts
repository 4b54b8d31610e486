import { Cause, ConfigError, Data, Option } from "effect"
import { DataDirLocked, DataDirUnusable } from "../services/embedded/DataDirLock.js"
import { isMigrationsProblem, type MigrationsProblem, type SchemaBehind } from "../services/database/Migrations.js"
// Type only: EmbeddedPostgres loads PGlite, which a process on PostgreSQL never needs.
import type { EmbeddedDatabaseError } from "../services/embedded/EmbeddedPostgres.js"

/**
 * Why a process could not start, as the one line an operator reads: what failed and the variable
 * to look at. Everything else (stacks, causes) goes to the debug log.
 */
export class StartupFailure extends Data.TaggedError("StartupFailure")<{
  readonly message: string
  /** What the line summarises, for the debug log. */
  readonly cause?: unknown
}> {}

const errorCode = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined

/** The innermost cause: sql-pg and our own errors wrap the Node or PostgreSQL error that says why. */
const rootOf = (error: unknown): unknown => {
  let current = error
  for (let depth = 0; depth < 8; depth++) {
    const next = typeof current === "object" && current !== null && "cause" in current ? current.cause : undefined
    if (next === undefined || next === null) return current
    current = next
  }
  return current
}

const firstLine = (text: string): string => {
  const [first = ""] = text.split("\n", 1)
  return first.trim()
}

const messageOf = (error: unknown): string =>
  firstLine(error instanceof Error || (typeof error === "object" && error !== null && "message" in error)
    ? String(error.message)
    : String(error))

const networkReasons: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ECONNRESET: "connection reset",
  ETIMEDOUT: "timed out"
}

/** PostgreSQL's SQLSTATE: five characters; its message is one line the server wrote for users. */
const isServerError = (error: unknown): boolean => /^[0-9A-Z]{5}$/.test(errorCode(error) ?? "")

/** The database connection failed: unreachable, or the server refused us (role, database, password). */
export const databaseFailure = (name: string, where: string, error: unknown): StartupFailure => {
  const root = rootOf(error)
  const code = errorCode(root)
  const text = messageOf(root)
  if (isServerError(root)) {
    return new StartupFailure({
      message: `${name}: PostgreSQL at ${where} refused the connection: ${text} (check DATABASE_URL)`,
      cause: error
    })
  }
  const reason = (code !== undefined ? networkReasons[code] : undefined) ??
    (/timed? ?out|timeout/i.test(text) ? "timed out" : text)
  const variables = reason === "timed out" ? "DATABASE_URL and DATABASE_CONNECT_TIMEOUT_MS" : "DATABASE_URL"
  return new StartupFailure({
    message: `${name}: cannot reach PostgreSQL at ${where}: ${reason} (check ${variables})`,
    cause: error
  })
}

/** The schema could not be applied although the connection worked: usually the role's rights. */
export const migrationFailure = (name: string, where: string, error: unknown): StartupFailure =>
  new StartupFailure({
    message: `${name}: cannot apply the schema on PostgreSQL at ${where}: ${messageOf(rootOf(error))} ` +
      `(check that DATABASE_URL's role may create tables)`,
    cause: error
  })

const listenReasons: Record<string, string> = {
  EADDRINUSE: "address already in use",
  EACCES: "permission denied (ports below 1024 need privileges)",
  EADDRNOTAVAIL: "no such address on this machine",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed"
}

/** A port that cannot be listened on: in use, privileged, or HOST not an address of this machine. */
export const listenFailure = (
  name: string,
  address: { readonly host: string; readonly port: number; readonly service: string },
  portVariables: string,
  error: { readonly message: string }
): StartupFailure => {
  const code = /\b(E[A-Z_]+)\b/.exec(error.message)?.[1]
  const reason = (code !== undefined ? listenReasons[code] : undefined) ?? firstLine(error.message)
  const look = code === "EADDRNOTAVAIL" || code === "ENOTFOUND" || code === "EAI_AGAIN" ? "HOST" : portVariables
  const which = name === address.service ? "" : ` for the ${address.service} service`
  return new StartupFailure({
    message: `${name}: cannot listen on ${address.host}:${address.port}${which}: ${reason} (set ${look})`,
    cause: error
  })
}

/** The first refusal of a configuration: our variables say `NAME=value is not valid: rule` already. */
const configLine = (error: ConfigError.ConfigError): string => {
  switch (error._op) {
    case "And":
    case "Or":
      return configLine(error.left)
    case "InvalidData":
    case "MissingData":
    case "SourceUnavailable":
    case "Unsupported": {
      const name = error.path.join(".")
      return error.message.startsWith(name) ? error.message : `${name}: ${error.message}`
    }
  }
}

const embeddedLine = (name: string, error: DataDirLocked | DataDirUnusable | EmbeddedDatabaseError): string => {
  switch (error._tag) {
    case "DataDirLocked":
      return Option.match(error.owner, {
        onNone: () =>
          `${name}: DATA_DIR=${error.dataDir} is locked by ${error.lockFile}, which names no owner ` +
          `(remove it if no process uses the directory, or set DATA_DIR)`,
        onSome: (owner) =>
          `${name}: DATA_DIR=${error.dataDir} is in use by process ${owner.pid} on host ${owner.host} ` +
          `(lock file ${error.lockFile}; stop that process or set DATA_DIR)`
      })
    case "DataDirUnusable":
      return `${name}: cannot create and write DATA_DIR=${error.dataDir}: ${error.reason} ` +
        `(set DATA_DIR to a directory this process may create and write)`
    case "EmbeddedDatabaseError":
      return `${name}: ${error.message} (check DATA_DIR)`
  }
}

/**
 * `MIGRATE=off` on a database that lacks migrations: what to run first, naming the setting that
 * says which database (`DATABASE_URL`, or the embedded database's `DATA_DIR`).
 */
export const schemaBehindLine = (name: string, error: SchemaBehind, setting: "DATABASE_URL" | "DATA_DIR"): string => {
  const missing = error.missing.map(({ id, name }) => `${id} (${name})`).join(", ")
  return `${name}: the database lacks migration${error.missing.length === 1 ? "" : "s"} ${missing}, and MIGRATE=off ` +
    `does not apply them (run \`npm run migrate\` with this ${setting} first, or unset MIGRATE)`
}

/** The schema is not what this version needs, or this version's migrations cannot be read. */
const migrationsLine = (name: string, error: MigrationsProblem): string => {
  switch (error._tag) {
    case "SchemaBehind":
      return schemaBehindLine(name, error, "DATABASE_URL")
    case "DuplicateMigration":
      return `${name}: two migration files are numbered ${error.id} (check the migrations directory of this install)`
    case "MigrationFilesUnreadable":
      return `${name}: cannot read the migrations in ${error.directory}: ${messageOf(error.cause)} (check this install)`
    case "MigrationBlocked":
      return `${name}: migration ${error.migration.id} (${error.migration.name}) could not take its locks in ` +
        `${Math.round(error.waitedMillis / 1000)} s: they are held by ${error.blockers} ` +
        `(end that session, or set MIGRATION_DEADLINE_MS)`
  }
}

const isEmbeddedDatabaseError = (error: unknown): error is EmbeddedDatabaseError =>
  typeof error === "object" && error !== null && "_tag" in error && error._tag === "EmbeddedDatabaseError"

/** The one line for a failed start; anything unforeseen keeps only its first line. */
export const startupLine = (name: string, cause: Cause.Cause<unknown>): string => {
  const failure = Cause.failureOption(cause)
  const error: unknown = Option.isSome(failure) ? failure.value : Option.getOrUndefined(Cause.dieOption(cause))
  if (error instanceof StartupFailure) return error.message
  if (ConfigError.isConfigError(error)) return `${name}: ${configLine(error)}`
  if (error instanceof DataDirLocked || error instanceof DataDirUnusable) return embeddedLine(name, error)
  if (isEmbeddedDatabaseError(error)) return embeddedLine(name, error)
  if (isMigrationsProblem(error)) return migrationsLine(name, error)
  return `${name}: start-up failed: ${error === undefined ? "unknown cause" : messageOf(error)}`
}
