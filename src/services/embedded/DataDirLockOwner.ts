import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"
import { hostname } from "node:os"
import { dirname, join } from "node:path"
import { createExclusive, errorCode, type LockOwner, readOwner, removeIfExists } from "./DataDirLockFile.js"
import { bootId, probe } from "./DataDirLockSocket.js"

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
 * Whether the owner of a lock in `directory` is gone, so that its lock may be taken over. Where it
 * wrote this kernel's boot id and the name of the socket it listens on (DataDirLockSocket.ts), the
 * kernel answers, across containers and host names alike: a connection accepted is a live owner,
 * one refused a dead one. Otherwise only this host's processes can be checked: another host's lock
 * is never taken over (it may be another machine's, over a network file system). A lock with our
 * own pid that is not in `heldHere` (DataDirLock.ts) is a previous run's: a container restarts its
 * process with the same pid.
 */
export const isStale = (owner: LockOwner, directory: string): Effect.Effect<boolean> =>
  Effect.gen(function*() {
    if (owner.boot !== undefined && owner.boot === bootId && owner.socket !== undefined) {
      const answer = yield* probe(directory, owner.socket)
      if (answer !== "unknown") return answer === "gone"
    }
    return owner.host === hostname() && (owner.pid === process.pid || !isRunning(owner))
  })

const ownStart = procStat(process.pid)?.started

/** This process as an owner; `socket` is the name of the socket it listens on, if it does. */
export const newOwner = (socket: Option.Option<string> = Option.none(), nonce = randomUUID()): LockOwner => ({
  pid: process.pid,
  host: hostname(),
  nonce,
  since: new Date().toISOString(),
  ...(ownStart === undefined ? {} : { started: ownStart }),
  ...(bootId === undefined ? {} : { boot: bootId }),
  ...Option.match(socket, { onNone: () => ({}), onSome: (name) => ({ socket: name }) })
})

/**
 * Removes `file` if it still holds `stale` (and the socket file `stale` left), racing safely with
 * others doing the same. `me` claims it: this process as the owner it will be, socket included, so
 * that a claimant in another container can be judged as an owner is.
 */
export const removeStale = (file: string, stale: LockOwner, me: LockOwner, depth: number): Effect.Effect<void, unknown> =>
  Effect.gen(function*() {
    const directory = dirname(file)
    const claim = `${file}.claim-${stale.nonce}`
    if (yield* createExclusive(claim, me)) {
      const current = yield* readOwner(file)
      if (current._tag === "Found" && Option.exists(current.owner, (owner) => owner.nonce === stale.nonce)) {
        yield* removeIfExists(file)
        if (stale.socket !== undefined) yield* removeIfExists(join(directory, stale.socket))
      }
      return yield* removeIfExists(claim)
    }
    const claimant = yield* readOwner(claim)
    if (claimant._tag === "Missing") return
    const owner = claimant.owner
    if (Option.isSome(owner) && depth < 8 && (yield* isStale(owner.value, directory))) {
      return yield* removeStale(claim, owner.value, me, depth + 1)
    }
    // A live process is taking it over (a matter of microseconds), or a claim we cannot judge.
    yield* Effect.sleep(depth < 8 && Option.isSome(owner) ? "20 millis" : "200 millis")
  })
