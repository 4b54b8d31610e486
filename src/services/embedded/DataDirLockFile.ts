import { Effect, Option, Schema } from "effect"
import { link, readFile, unlink, writeFile } from "node:fs/promises"

/*
 * The lock file of a data directory (DataDirLock.ts) on disk: what it holds, how it is read, and
 * how it is created complete or not at all.
 */

export interface LockOwner {
  readonly pid: number
  readonly host: string
  readonly nonce: string
  readonly since: string
  /** The process's start time in clock ticks since boot (Linux), which tells a reused pid apart. */
  readonly started?: string
  /** The kernel's boot id (Linux): the same in every container of one machine, new at each boot. */
  readonly boot?: string
  /** The name, in the data directory, of the socket the owner listens on while it lives. */
  readonly socket?: string
}

export const errorCode = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined

/** What an owner must have written for its lock to be read as its; `since` and `started` may be missing or odd. */
const StoredOwner = Schema.parseJson(Schema.Struct({
  pid: Schema.Number,
  host: Schema.String,
  nonce: Schema.String,
  since: Schema.optional(Schema.Unknown),
  started: Schema.optional(Schema.Unknown),
  boot: Schema.optional(Schema.Unknown),
  socket: Schema.optional(Schema.Unknown)
}))

/** A socket name as an owner writes it: a plain name, never a path out of the directory. */
const socketName = /^onboarding\.[0-9a-f-]{36}\.sock$/

const parseOwner = (text: string): Option.Option<LockOwner> =>
  Option.map(Schema.decodeUnknownOption(StoredOwner)(text), ({ boot, host, nonce, pid, since, socket, started }) => ({
    pid,
    host,
    nonce,
    since: typeof since === "string" ? since : "",
    ...(typeof started === "string" ? { started } : {}),
    ...(typeof boot === "string" ? { boot } : {}),
    ...(typeof socket === "string" && socketName.test(socket) ? { socket } : {})
  }))

type Read = { readonly _tag: "Missing" } | { readonly _tag: "Found"; readonly owner: Option.Option<LockOwner> }

/** A file-system call whose failure is the Node error itself (its `code` says what happened). */
export const attempt = <A>(operation: () => Promise<A>) => Effect.tryPromise({ try: operation, catch: (error) => error })

export const readOwner = (file: string) =>
  attempt(() => readFile(file, "utf8")).pipe(
    Effect.map((text): Read => ({ _tag: "Found", owner: parseOwner(text) })),
    Effect.catchIf((error) => errorCode(error) === "ENOENT", () => Effect.succeed<Read>({ _tag: "Missing" }))
  )

/** Creates `file` holding `owner`, complete, unless `file` exists (then false). */
export const createExclusive = (file: string, owner: LockOwner) =>
  Effect.gen(function*() {
    const draft = `${file}.${owner.nonce}.draft`
    yield* attempt(() => writeFile(draft, JSON.stringify(owner), { flag: "wx" }))
    return yield* attempt(() => link(draft, file)).pipe(
      Effect.as(true),
      Effect.catchIf((error) => errorCode(error) === "EEXIST", () => Effect.succeed(false)),
      Effect.ensuring(Effect.promise(() => unlink(draft).catch(() => undefined)))
    )
  })

export const removeIfExists = (file: string) =>
  attempt(() => unlink(file)).pipe(Effect.catchIf((error) => errorCode(error) === "ENOENT", () => Effect.void))
