import * as PgClient from "@effect/sql-pg/PgClient"
import { Data, Duration, Effect, Layer, Redacted } from "effect"
import type { SqlClient, SqlError } from "@effect/sql"
import type { DataDirLocked, DataDirUnusable } from "../embedded/DataDirLock.js"
import type { EmbeddedDatabaseError } from "../embedded/EmbeddedPostgres.js"
import { pooledClient } from "./DatabasePool.js"
import { embeddedConnections } from "../embedded/EmbeddedConnection.js"
import { migrate, MigrationLockWaits, type MigrationsProblem, verify } from "./Migrations.js"
import { OperationBudget } from "./Transient.js"

export type DatabaseOptions =
  | {
    readonly kind: "postgres"
    readonly url: Redacted.Redacted
    readonly poolSize: number
    /** How long to wait for a connection (to open one, or for a free one in a busy pool). */
    readonly connectTimeoutMillis?: number
    /** See `OperationBudget`. */
    readonly operationTimeoutMillis?: number
    /** See `DatabaseGate`. */
    readonly maxWaiting?: number
    /** See `MigrationLockWaits`. */
    readonly migrationLockWaits?: MigrationLockWaits["Type"]
  }
  | {
    readonly kind: "embedded"
    readonly dataDir: string
    readonly operationTimeoutMillis?: number
    readonly maxWaiting?: number
    readonly migrationLockWaits?: MigrationLockWaits["Type"]
  }

/** Units of work that may wait for a connection when none is given (`DATABASE_POOL_MAX_WAITING`). */
export const defaultMaxWaiting = 1024

/** The `DATA_DIR` of an embedded database that keeps nothing. */
export const inMemory = "memory://"

/**
 * PostgreSQL could not be reached, or refused us (role, database, password), before any query:
 * at start-up a different variable is to blame than when the schema fails to apply.
 */
export class ConnectFailed extends Data.TaggedError("ConnectFailed")<{ readonly cause: unknown }> {}

/**
 * A connection string as logs and messages show it: the password masked (also one given as a
 * query parameter), even when the rest does not parse as a URL.
 */
export const withPasswordMasked = (text: string): string =>
  text.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/?#@]*:).*@/is, "$1***@").replace(/([?&]password=)[^&#]*/gi, "$1***")

/** For logs: where the data lives, with any password masked. */
export const describe = (options: DatabaseOptions): string =>
  options.kind === "embedded"
    ? options.dataDir === inMemory ? "embedded PGlite (in memory)" : `embedded PGlite in ${options.dataDir}`
    : `PostgreSQL at ${withPasswordMasked(Redacted.value(options.url))} (pool ${options.poolSize})`

type EmbeddedFailure = DataDirLocked | DataDirUnusable | EmbeddedDatabaseError

/** How long each unit of work may take (see `OperationBudget`). */
const budget = (options: DatabaseOptions) =>
  Layer.succeed(OperationBudget, Duration.millis(options.operationTimeoutMillis ?? 10_000))

const client = (
  options: DatabaseOptions
): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, ConnectFailed | SqlError.SqlError | EmbeddedFailure> =>
  options.kind === "postgres"
    ? pooledClient({
      connectionString: Redacted.value(options.url),
      max: options.poolSize,
      application_name: "onboarding",
      connectionTimeoutMillis: options.connectTimeoutMillis ?? 3_000
    }, options.maxWaiting ?? defaultMaxWaiting).pipe(
      Layer.mapError((cause) => new ConnectFailed({ cause })),
      Layer.merge(budget(options))
    )
    // Loaded on demand: PGlite is large, and a process on a PostgreSQL server never needs it.
    : Layer.unwrapScoped(
      Effect.promise(() => import("../embedded/EmbeddedPostgres.js")).pipe(
        Effect.flatMap(({ openEmbeddedDatabase }) =>
          openEmbeddedDatabase(options.dataDir === inMemory ? undefined : options.dataDir)
        ),
        Effect.map((db) =>
          pooledClient({ stream: embeddedConnections(db), user: "postgres", database: "postgres", max: 1 }, options.maxWaiting ?? defaultMaxWaiting)
        )
      )
    ).pipe(Layer.merge(budget(options)))

/**
 * What a process does with the schema when it starts: apply the migrations the database lacks
 * (the default), or only check that none is lacking (`MIGRATE=off`, when a deploy step runs
 * `migrate` before the new version starts).
 */
export type SchemaPolicy = "apply" | "verify"

const applied: Effect.Effect<unknown, MigrationsProblem | SqlError.SqlError, SqlClient.SqlClient> = migrate().pipe(
  Effect.tap((applied) =>
    applied.length === 0
      ? Effect.logInfo("database: schema up to date")
      : Effect.forEach(applied, ({ id, name }) => Effect.logInfo(`database: migration ${id} (${name}) applied`))
  )
)
const checked: Effect.Effect<unknown, MigrationsProblem | SqlError.SqlError, SqlClient.SqlClient> = Effect.tap(
  verify(),
  () => Effect.logInfo("database: schema up to date (MIGRATE=off: checked, not migrated)")
)
const schema = (policy: SchemaPolicy) => (policy === "apply" ? applied : checked).pipe(Effect.withLogSpan("migration"))

/** A SqlClient with the schema migrated (or checked, see `SchemaPolicy`). */
export const layer = (options: DatabaseOptions, policy: SchemaPolicy = "apply") =>
  Layer.effectDiscard(
    options.migrationLockWaits === undefined
      ? schema(policy)
      : Effect.provideService(schema(policy), MigrationLockWaits, options.migrationLockWaits)
  ).pipe(Layer.provideMerge(client(options)))
