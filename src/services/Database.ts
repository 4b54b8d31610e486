import * as PgClient from "@effect/sql-pg/PgClient"
import { Config, Duration, Effect, Layer, Option, Redacted } from "effect"
import { migrate } from "./Migrations.js"
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
  }
  | { readonly kind: "embedded"; readonly dataDir: string }

/** The `DATA_DIR` of an embedded database that keeps nothing. */
export const inMemory = "memory://"

/** `DATABASE_URL` selects PostgreSQL; without it the embedded database lives in `DATA_DIR`. */
export const optionsFromConfig: Config.Config<DatabaseOptions> = Config.all({
  url: Config.option(Config.redacted("DATABASE_URL")),
  poolSize: Config.integer("DATABASE_POOL_SIZE").pipe(Config.withDefault(10)),
  connectTimeoutMillis: Config.integer("DATABASE_CONNECT_TIMEOUT_MS").pipe(Config.withDefault(3_000)),
  operationTimeoutMillis: Config.integer("DATABASE_OPERATION_TIMEOUT_MS").pipe(Config.withDefault(10_000)),
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault("./.data"))
}).pipe(
  Config.map(({ connectTimeoutMillis, dataDir, operationTimeoutMillis, poolSize, url }): DatabaseOptions =>
    Option.isSome(url) && Redacted.value(url.value) !== ""
      ? { kind: "postgres", url: url.value, poolSize, connectTimeoutMillis, operationTimeoutMillis }
      : { kind: "embedded", dataDir }
  )
)

/** For logs: where the data lives, with any password masked. */
export const describe = (options: DatabaseOptions): string => {
  if (options.kind === "embedded") {
    return options.dataDir === inMemory ? "embedded PGlite (in memory)" : `embedded PGlite in ${options.dataDir}`
  }
  const text = Redacted.value(options.url)
  try {
    const url = new URL(text)
    if (url.password !== "") url.password = "***"
    return `PostgreSQL at ${url.toString()} (pool ${options.poolSize})`
  } catch {
    return "PostgreSQL (DATABASE_URL is not a URL; connection string not shown)"
  }
}

const client = (options: DatabaseOptions) =>
  options.kind === "postgres"
    ? PgClient.layer({
      url: options.url,
      maxConnections: options.poolSize,
      applicationName: "onboarding",
      connectTimeout: Duration.millis(options.connectTimeoutMillis ?? 3_000)
    }).pipe(
      Layer.merge(Layer.succeed(OperationBudget, Duration.millis(options.operationTimeoutMillis ?? 10_000)))
    )
    // Loaded on demand: PGlite is large, and a process on a PostgreSQL server never needs it.
    : Layer.unwrapScoped(
      Effect.promise(() => import("./EmbeddedPostgres.js")).pipe(
        Effect.flatMap(({ serveEmbeddedPostgres }) =>
          serveEmbeddedPostgres(options.dataDir === inMemory ? undefined : options.dataDir)
        ),
        Effect.map(({ host, port }) =>
          PgClient.layer({ host, port, username: "postgres", database: "postgres", maxConnections: 1 })
        )
      )
    )

/** A SqlClient with the schema migrated. */
export const layer = (options: DatabaseOptions) =>
  Layer.effectDiscard(migrate()).pipe(Layer.provideMerge(client(options)))

export const layerConfig = Layer.unwrapEffect(Effect.map(optionsFromConfig, layer))
