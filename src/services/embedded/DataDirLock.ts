import { Data, Effect, Option, type Scope } from "effect"
import { randomUUID } from "node:crypto"
import { mkdir, realpath, stat } from "node:fs/promises"
import { dirname, join, resolve } from "node:path"
import { attempt, createExclusive, errorCode, type LockOwner, readOwner, removeIfExists } from "./DataDirLockFile.js"
import { isStale, newOwner, removeStale } from "./DataDirLockOwner.js"
import { listenForProbes } from "./DataDirLockSocket.js"

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
 * Whether an owner is dead is DataDirLockOwner.ts's to say: on this host by its pid, from another
 * container of the same machine by the socket each owner listens on in the directory, bound before
 * its lock is created and closed after its lock is removed, so that it answers whenever the lock
 * names it.
 */

export type { LockOwner } from "./DataDirLockFile.js"

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
    const held = Effect.acquireRelease(
      Effect.suspend(() =>
        heldHere.has(directory)
          ? Effect.fail(new DataDirLocked({ dataDir, lockFile, owner: Option.some({ ...newOwner(), nonce: "" }) }))
          : Effect.sync(() => heldHere.add(directory))
      ),
      () => Effect.sync(() => heldHere.delete(directory))
    )
    yield* held
    const nonce = randomUUID()
    const me = newOwner(yield* listenForProbes(directory, nonce), nonce)

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
      if (Option.isNone(current.owner) || !(yield* isStale(current.owner.value, directory))) {
        return yield* new DataDirLocked({ dataDir, lockFile, owner: current.owner })
      }
      yield* removeStale(lockFile, current.owner.value, me, 0).pipe(Effect.mapError(asUnusable))
    }
    return yield* new DataDirLocked({ dataDir, lockFile, owner: Option.none() })
  })
