import { Data, Effect, Option, type Scope } from "effect"
import { randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"
import { link, mkdir, readFile, realpath, stat, unlink, writeFile } from "node:fs/promises"
import { hostname } from "node:os"
import { dirname, join, resolve } from "node:path"

/**
 * One process per embedded data directory. PGlite takes no lock of its own, so two processes on
 * one directory would each serve their own copy and lose each other's acknowledged writes.
 *
 * The lock is a file in the directory holding its owner (pid, host, a nonce that tells two owners
 * with the same pid apart). It is always created complete, by hard-linking a file already written
 * (link fails if the name exists), so no one ever reads a half-written lock. A lock whose owner is
 * dead on this host is stale: to remove it a process must first create a claim named after the
 * stale lock's nonce (again by link, so exactly one process holds it), then check the lock still
 * holds that nonce; nobody else can remove it in between, so the check cannot go out of date. A
 * claimant that dies mid-claim leaves a claim that is itself stale, and is cleared the same way.
 */

export interface LockOwner {
  readonly pid: number
  readonly host: string
  readonly nonce: string
  readonly since: string
  /** The process's start time in clock ticks since boot (Linux), which tells a reused pid apart. */
  readonly started?: string
}

export class DataDirLocked extends Data.TaggedError("DataDirLocked")<{
  readonly dataDir: string
  readonly lockFile: string
  /** None when the lock file cannot be read as one of ours. */
  readonly owner: Option.Option<LockOwner>
}> {
  override get message() {
    return Option.match(this.owner, {
      onNone: () => `${this.dataDir} is locked by ${this.lockFile}, which names no owner`,
      onSome: (owner) => `${this.dataDir} is in use by process ${owner.pid} on host ${owner.host}`
    })
  }
}

export class DataDirUnusable extends Data.TaggedError("DataDirUnusable")<{
  readonly dataDir: string
  /** Why, in a few words ("permission denied"). */
  readonly reason: string
  readonly cause: unknown
}> {
  override get message() {
    return `${this.dataDir} cannot be created and written: ${this.reason}`
  }
}

export const lockFileName = "onboarding.lock"

/** Directories locked by this process: a second lock here must refuse, yet its pid looks alive. */
const heldHere = new Set<string>()

const errorCode = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined

const reasons: Record<string, string> = {
  ENOTDIR: "a part of the path is a file, not a directory",
  EEXIST: "it exists and is not a directory",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "read-only file system",
  ENOENT: "it cannot be created there",
  ENOSPC: "no space left on the device",
  EDQUOT: "disk quota exceeded",
  ENAMETOOLONG: "the path is too long",
  ELOOP: "too many symbolic links in the path"
}

const unusable = (dataDir: string) => (cause: unknown) =>
  new DataDirUnusable({ dataDir, reason: reasons[errorCode(cause) ?? ""] ?? String(errorCode(cause) ?? cause), cause })

/** State and start time of a process, where /proc tells them (Linux); undefined elsewhere. */
const procStat = (pid: number): { readonly state: string; readonly started: string } | undefined => {
  try {
    // Fields after the command name, which may itself hold spaces and parentheses: 3 (state) on.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ").pop()!.split(" ")
    return { state: fields[0]!, started: fields[19]! }
  } catch {
    return undefined
  }
}

/**
 * True when the owner is still running: its pid is alive (EPERM: alive, someone else's), is not a
 * zombie (it has exited, its parent has not reaped it yet) and, where the lock says when the owner
 * started, is still that process and not a later one given the same pid (after a reboot or a
 * container restart).
 */
const isRunning = (owner: LockOwner): boolean => {
  try {
    process.kill(owner.pid, 0)
  } catch (error) {
    if (errorCode(error) !== "EPERM") return false
  }
  const stat = procStat(owner.pid)
  if (stat === undefined) return true
  return stat.state !== "Z" && (owner.started === undefined || owner.started === stat.started)
}

/**
 * Another host's process cannot be checked, so its lock is never taken over. A lock with our own
 * pid that is not in `heldHere` is a previous run's: a container restarts its process with the
 * same pid.
 */
const isStale = (owner: LockOwner): boolean =>
  owner.host === hostname() && (owner.pid === process.pid || !isRunning(owner))

const parseOwner = (text: string): Option.Option<LockOwner> => {
  try {
    const value: unknown = JSON.parse(text)
    if (typeof value !== "object" || value === null) return Option.none()
    const { host, nonce, pid, since, started } = value as Record<string, unknown>
    return typeof pid === "number" && typeof host === "string" && typeof nonce === "string"
      ? Option.some({
        pid,
        host,
        nonce,
        since: typeof since === "string" ? since : "",
        ...(typeof started === "string" ? { started } : {})
      })
      : Option.none()
  } catch {
    return Option.none()
  }
}

type Read = { readonly _tag: "Missing" } | { readonly _tag: "Found"; readonly owner: Option.Option<LockOwner> }

/** A file-system call whose failure is the Node error itself (its `code` says what happened). */
const attempt = <A>(operation: () => Promise<A>) => Effect.tryPromise({ try: operation, catch: (error) => error })

const readOwner = (file: string) =>
  attempt(() => readFile(file, "utf8")).pipe(
    Effect.map((text): Read => ({ _tag: "Found", owner: parseOwner(text) })),
    Effect.catchIf((error) => errorCode(error) === "ENOENT", () => Effect.succeed<Read>({ _tag: "Missing" }))
  )

/** Creates `file` holding `owner`, complete, unless `file` exists (then false). */
const createExclusive = (file: string, owner: LockOwner) =>
  Effect.gen(function*() {
    const draft = `${file}.${owner.nonce}.draft`
    yield* attempt(() => writeFile(draft, JSON.stringify(owner), { flag: "wx" }))
    return yield* attempt(() => link(draft, file)).pipe(
      Effect.as(true),
      Effect.catchIf((error) => errorCode(error) === "EEXIST", () => Effect.succeed(false)),
      Effect.ensuring(Effect.promise(() => unlink(draft).catch(() => undefined)))
    )
  })

const removeIfExists = (file: string) =>
  attempt(() => unlink(file)).pipe(Effect.catchIf((error) => errorCode(error) === "ENOENT", () => Effect.void))

const ownStart = procStat(process.pid)?.started

const newOwner = (): LockOwner => ({
  pid: process.pid,
  host: hostname(),
  nonce: randomUUID(),
  since: new Date().toISOString(),
  ...(ownStart === undefined ? {} : { started: ownStart })
})

/** Removes `file` if it still holds `stale`, racing safely with others doing the same. */
const removeStale = (file: string, stale: LockOwner, depth: number): Effect.Effect<void, unknown> =>
  Effect.gen(function*() {
    const claim = `${file}.claim-${stale.nonce}`
    if (yield* createExclusive(claim, newOwner())) {
      const current = yield* readOwner(file)
      if (current._tag === "Found" && Option.exists(current.owner, (owner) => owner.nonce === stale.nonce)) {
        yield* removeIfExists(file)
      }
      return yield* removeIfExists(claim)
    }
    const claimant = yield* readOwner(claim)
    if (claimant._tag === "Missing") return
    const owner = claimant.owner
    if (Option.isSome(owner) && isStale(owner.value) && depth < 8) return yield* removeStale(claim, owner.value, depth + 1)
    // A live process is taking it over (a matter of microseconds), or a claim we cannot judge.
    yield* Effect.sleep(depth < 8 && Option.isSome(owner) ? "20 millis" : "200 millis")
  })

/**
 * `mkdir -p`, one level at a time: Node's recursive mkdir spins forever (at full CPU, deaf to
 * signals) when the kernel answers ENOENT for a parent that exists, as /proc does for `/proc/x`.
 */
const makeDirectory = (path: string): Effect.Effect<void, unknown> =>
  attempt(() => mkdir(path)).pipe(
    Effect.catchAll((error) => {
      if (errorCode(error) === "EEXIST") {
        return attempt(() => stat(path)).pipe(Effect.flatMap((found) => found.isDirectory() ? Effect.void : Effect.fail(error)))
      }
      if (errorCode(error) !== "ENOENT" || dirname(path) === path) return Effect.fail(error)
      return attempt(() => stat(dirname(path))).pipe(
        Effect.matchEffect({
          // The parent is there, so ENOENT is the file system refusing (procfs): give up.
          onSuccess: () => Effect.fail(error),
          onFailure: () => Effect.zipRight(makeDirectory(dirname(path)), makeDirectory(path))
        })
      )
    })
  )

/**
 * Takes the data directory for the scope's lifetime (creating it if needed: this is also where a
 * directory that cannot be created or written is found out, before the database opens it).
 */
export const lockDataDir = (dataDir: string): Effect.Effect<void, DataDirLocked | DataDirUnusable, Scope.Scope> =>
  Effect.gen(function*() {
    const asUnusable = unusable(dataDir)
    yield* makeDirectory(resolve(dataDir)).pipe(Effect.mapError(asUnusable))
    const directory = yield* attempt(() => realpath(dataDir)).pipe(Effect.mapError(asUnusable))
    const lockFile = join(directory, lockFileName)
    const me = newOwner()
    const held = Effect.acquireRelease(
      Effect.suspend(() =>
        heldHere.has(directory)
          ? Effect.fail(new DataDirLocked({ dataDir, lockFile, owner: Option.some({ ...me, nonce: "" }) }))
          : Effect.sync(() => heldHere.add(directory))
      ),
      () => Effect.sync(() => heldHere.delete(directory))
    )
    yield* held

    for (let round = 0; round < 50; round++) {
      const taken = yield* createExclusive(lockFile, me).pipe(Effect.mapError(asUnusable))
      if (taken) {
        return yield* Effect.addFinalizer(() =>
          readOwner(lockFile).pipe(
            Effect.flatMap((current) =>
              current._tag === "Found" && Option.exists(current.owner, (owner) => owner.nonce === me.nonce)
                ? removeIfExists(lockFile)
                : Effect.void
            ),
            Effect.ignore
          )
        )
      }
      const current = yield* readOwner(lockFile).pipe(Effect.mapError(asUnusable))
      if (current._tag === "Missing") continue
      if (Option.isNone(current.owner) || !isStale(current.owner.value)) {
        return yield* new DataDirLocked({ dataDir, lockFile, owner: current.owner })
      }
      yield* removeStale(lockFile, current.owner.value, 0).pipe(Effect.mapError(asUnusable))
    }
    return yield* new DataDirLocked({ dataDir, lockFile, owner: Option.none() })
  })
