import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"
import { hostname } from "node:os"
import { createExclusive, errorCode, type LockOwner, readOwner, removeIfExists } from "./DataDirLockFile.js"

/*
 * The owners of data directory locks (DataDirLock.ts): this process as one, whether another is
 * still running, and how a dead owner's lock is taken away.
 */

/** State and start time of a process, where /proc tells them (Linux); undefined elsewhere. */
const procStat = (pid: number): { readonly state: string; readonly started: string } | undefined => {
  try {
    // Fields after the command name, which may itself hold spaces and parentheses: 3 (state) on.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const [state, ...later] = stat.slice(stat.lastIndexOf(") ") + 2).split(" ")
    const started = later[18]
    return state === undefined || started === undefined ? undefined : { state, started }
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
 * pid that is not in `heldHere` (DataDirLock.ts) is a previous run's: a container restarts its process with the
 * same pid.
 */
export const isStale = (owner: LockOwner): boolean =>
  owner.host === hostname() && (owner.pid === process.pid || !isRunning(owner))

const ownStart = procStat(process.pid)?.started

export const newOwner = (): LockOwner => ({
  pid: process.pid,
  host: hostname(),
  nonce: randomUUID(),
  since: new Date().toISOString(),
  ...(ownStart === undefined ? {} : { started: ownStart })
})

/** Removes `file` if it still holds `stale`, racing safely with others doing the same. */
export const removeStale = (file: string, stale: LockOwner, depth: number): Effect.Effect<void, unknown> =>
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
