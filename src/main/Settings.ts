import { Config } from "effect"

/** What a process reads from its environment, besides the database (see services/Database). */
export interface Settings {
  readonly host: string
  readonly readMaxBytes: number
  readonly shutdownGraceMillis: number
}

export const settings: Config.Config<Settings> = Config.all({
  host: Config.string("HOST").pipe(Config.withDefault("127.0.0.1")),
  readMaxBytes: Config.integer("MAX_BODY_BYTES").pipe(Config.withDefault(1024 * 1024)),
  shutdownGraceMillis: Config.integer("SHUTDOWN_GRACE_MS").pipe(Config.withDefault(10_000))
})

/** A service's port in the all-in-one process: its own variable, or the design's default. */
export const servicePort = (variable: string, fallback: number): Config.Config<number> =>
  Config.port(variable).pipe(Config.withDefault(fallback))

/** In a process of its own a service also takes the conventional `PORT`. */
export const dedicatedPort = (variable: string, fallback: number): Config.Config<number> =>
  Config.port("PORT").pipe(Config.orElse(() => servicePort(variable, fallback)))
