import { Effect, Option, type Scope } from "effect"
import { readFileSync } from "node:fs"
import { createConnection, createServer, type Server } from "node:net"
import { join } from "node:path"
import { errorCode } from "./DataDirLockFile.js"

/*
 * A lock owner's proof of life that crosses containers (DataDirLockOwner.ts). A container
 * recreated on the same volume has a new host name and a pid namespace of its own, so the pid in a
 * lock cannot be checked; but both see the same kernel, and the kernel answers for a Unix socket
 * bound in the data directory itself: a connection to it succeeds while the process holding it
 * lives (even stopped or frozen: the kernel queues it), and is refused (ECONNREFUSED) once that
 * process is gone, however it ended. Only the same kernel's answer counts: the owner writes the
 * kernel's boot id beside the socket's name, and a socket file seen over a network file system from
 * another machine (another boot id) is never asked.
 */

/** The kernel's boot id: the same in every container of one machine until it reboots (Linux). */
export const bootId: string | undefined = (() => {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim() || undefined
  } catch {
    return undefined
  }
})()

export const socketNameOf = (nonce: string) => `onboarding.${nonce}.sock`

/** Longest path a Unix socket may be bound at (sun_path, Linux 108 with its terminating NUL). */
const longestPath = 107

/**
 * Listens on the owner's socket in `directory` for the scope (None where none can be: no boot id,
 * a path too long for a socket, a file system without sockets). It holds no event loop open.
 */
export const listenForProbes = (directory: string, nonce: string): Effect.Effect<Option.Option<string>, never, Scope.Scope> => {
  const name = socketNameOf(nonce)
  const path = join(directory, name)
  if (bootId === undefined || Buffer.byteLength(path) > longestPath) return Effect.succeed(Option.none())
  return Effect.acquireRelease(
    Effect.async<Option.Option<Server>>((resume) => {
      const server = createServer((connection) => connection.destroy())
      server.once("error", () => resume(Effect.succeed(Option.none())))
      server.listen(path, () => {
        server.unref()
        resume(Effect.succeed(Option.some(server)))
      })
    }),
    // Closing unlinks the socket file.
    (server) => Option.match(server, { onNone: () => Effect.void, onSome: (s) => Effect.async<void>((resume) => void s.close(() => resume(Effect.void))) })
  ).pipe(Effect.map(Option.as(name)))
}

export type ProbeAnswer = "alive" | "gone" | "unknown"

/**
 * Asks the kernel whether the process that bound `name` in `directory` still holds it. "gone" is
 * only ECONNREFUSED: a missing file, a full backlog or no answer at all prove nothing.
 */
export const probe = (directory: string, name: string): Effect.Effect<ProbeAnswer> =>
  Effect.async<ProbeAnswer>((resume) => {
    const connection = createConnection(join(directory, name))
    const settle = (answer: ProbeAnswer) => {
      clearTimeout(timer)
      connection.destroy()
      resume(Effect.succeed(answer))
    }
    const timer = setTimeout(() => settle("unknown"), 2000)
    connection.once("connect", () => settle("alive"))
    connection.once("error", (error) => settle(errorCode(error) === "ECONNREFUSED" ? "gone" : "unknown"))
  })
