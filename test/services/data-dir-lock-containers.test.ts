import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { existsSync, readFileSync } from "node:fs"
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DataDirLocked, lockDataDir, lockFileName } from "../../src/services/embedded/DataDirLock.js"

// A container recreated on its volume: a lock written by another host name (the old container's),
// on the same kernel. Only that kernel's answer (the owner's socket) may let it be taken over.

const linux = process.platform === "linux"
const bootId = linux ? readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim() : ""

const temporaryDirectory = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "onboarding-lock-"))),
  (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
)

/** Another container's owner: a pid and host name this one cannot check. */
const otherContainer = (nonce: string, boot = bootId) => ({
  pid: 1,
  host: "3f2a9c1b7d4e",
  nonce,
  since: new Date().toISOString(),
  boot,
  socket: `onboarding.${nonce}.sock`
})

/**
 * A process bound to the owner's socket in `dir`: alive for the scope, or, `killed`, gone by
 * SIGKILL as a container's process is, leaving its socket file behind.
 */
const socketHolder = (dir: string, nonce: string, killed: boolean) =>
  Effect.acquireRelease(
    Effect.async<ReturnType<typeof spawn>>((resume) => {
      const path = join(dir, `onboarding.${nonce}.sock`)
      const script = `require("node:net").createServer().listen(${JSON.stringify(path)}, () => ${
        killed ? "process.kill(process.pid, 'SIGKILL')" : "console.log('listening')"
      })`
      const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] })
      if (killed) child.once("exit", () => resume(Effect.succeed(child)))
      else child.stdout!.once("data", () => resume(Effect.succeed(child)))
    }),
    (child) => Effect.sync(() => child.kill("SIGKILL"))
  )

const writeLock = (dir: string, owner: object) => Effect.promise(() => writeFile(join(dir, lockFileName), JSON.stringify(owner)))
const lockNonce = (dir: string) =>
  Effect.promise(() => readFile(join(dir, lockFileName), "utf8").then((text) => (JSON.parse(text) as { nonce: string }).nonce))

describe.skipIf(!linux)("the data directory's lock across containers of one machine", () => {
  it.scoped("refuses a lock of another host name whose owner's socket answers", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDirectory
      const nonce = randomUUID()
      yield* socketHolder(dir, nonce, false)
      yield* writeLock(dir, otherContainer(nonce))
      const error = yield* Effect.flip(Effect.scoped(lockDataDir(dir)))
      expect(error).toBeInstanceOf(DataDirLocked)
      expect(error.message).toBe(`${dir} is in use by process 1 on host 3f2a9c1b7d4e`)
      expect(yield* lockNonce(dir)).toBe(nonce)
    }))

  // Fails before the socket: a lock of another host was never taken over.
  it.scoped("takes over a lock of another host name whose owner was killed, and clears its socket", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDirectory
      const nonce = randomUUID()
      yield* socketHolder(dir, nonce, true)
      expect(existsSync(join(dir, `onboarding.${nonce}.sock`))).toBe(true)
      yield* writeLock(dir, otherContainer(nonce))
      yield* Effect.scoped(Effect.gen(function*() {
        yield* lockDataDir(dir)
        expect(yield* lockNonce(dir)).not.toBe(nonce)
      }))
      expect(yield* Effect.promise(() => readdir(dir))).toEqual([])
    }))

  it.scoped("never takes over from another boot (another machine, over a network file system)", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDirectory
      const nonce = randomUUID()
      yield* socketHolder(dir, nonce, true)
      yield* writeLock(dir, otherContainer(nonce, randomUUID()))
      expect((yield* Effect.flip(Effect.scoped(lockDataDir(dir))))._tag).toBe("DataDirLocked")
      expect(yield* lockNonce(dir)).toBe(nonce)
    }))

  it.scoped("never takes over when the owner's socket file is missing: that proves nothing", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDirectory
      const nonce = randomUUID()
      yield* writeLock(dir, otherContainer(nonce))
      expect((yield* Effect.flip(Effect.scoped(lockDataDir(dir))))._tag).toBe("DataDirLocked")
      expect(yield* lockNonce(dir)).toBe(nonce)
    }))
})
