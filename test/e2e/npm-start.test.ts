import { describe, expect, it } from "@effect/vitest"
import { type ChildProcess, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises"
import * as net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { freePort, startProcess, stopProcess } from "./support/Processes.js"

const projectRoot = fileURLToPath(new URL("../..", import.meta.url))

/**
 * `npm start` as a container runs it. `--ignore-scripts` skips only the prestart build (the test
 * run has built dist/ already); npm still runs the start script itself.
 */
const npmStart = async (dataDir: string, options: { readonly ownProcessGroup: boolean }) => {
  const [org, profile, license, workflow] = await Promise.all([freePort(), freePort(), freePort(), freePort()])
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    ORG_PORT: String(org),
    PROFILE_PORT: String(profile),
    LICENSE_PORT: String(license),
    WORKFLOW_PORT: String(workflow)
  }
  delete env["DATABASE_URL"]
  const npm = spawn("npm", ["start", "--ignore-scripts"], {
    cwd: projectRoot,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: options.ownProcessGroup
  })
  let output = ""
  npm.stdout!.on("data", (chunk) => (output += chunk))
  npm.stderr!.on("data", (chunk) => (output += chunk))
  const exited = new Promise<number | null>((resolve) => npm.once("exit", (code) => resolve(code)))
  const deadline = Date.now() + 60_000
  while ((output.match(/listening on/g) ?? []).length < 4) {
    if (Date.now() > deadline || npm.exitCode !== null) throw new Error(`npm start did not start:\n${output}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  // The server is npm's child, not npm: the lock on DATA_DIR names it.
  const server = JSON.parse(await readFile(join(dataDir, "onboarding.lock"), "utf8")).pid as number
  return { npm, server, exited, output: () => output, ports: { org, profile, license, workflow } }
}

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, "127.0.0.1")
    socket.once("connect", () => (socket.destroy(), resolve(true)))
    socket.once("error", () => resolve(false))
  })

/** Waits until `condition` holds, up to `millis`; answers whether it did. */
const eventually = async (condition: () => Promise<boolean> | boolean, millis: number) => {
  const deadline = Date.now() + millis
  while (Date.now() < deadline) {
    if (await condition()) return true
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return condition()
}

const withDataDir = async (body: (dir: string) => Promise<void>) => {
  const dir = await mkdtemp(join(tmpdir(), "onboarding-npm-start-"))
  try {
    await body(dir)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** Never leave a server behind if the test fails: before the fix it outlived npm. */
const killIfLeft = (started: { npm: ChildProcess; server: number }) => {
  if (isRunning(started.server)) process.kill(started.server, "SIGKILL")
  if (started.npm.exitCode === null) started.npm.kill("SIGKILL")
}

describe("npm start", () => {
  it("SIGTERM to the npm process stops the server within seconds, and acknowledged writes survive", () =>
    withDataDir(async (dir) => {
      const started = await npmStart(dir, { ownProcessGroup: false })
      try {
        expect(started.server).not.toBe(started.npm.pid)
        const id = randomUUID()
        const created = await fetch(`http://127.0.0.1:${started.ports.org}/orgs/${id}`, {
          method: "PUT",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ name: "Signalled Ltd" })
        })
        expect(created.status).toBe(200)

        started.npm.kill("SIGTERM")
        expect(await eventually(() => !isRunning(started.server), 10_000)).toBe(true)
        expect(await accepts(started.ports.org)).toBe(false)
        expect(await started.exited).toBe(0)
        expect(started.output()).toContain("org service stopped")

        const again = await startProcess("all", {
          DATA_DIR: dir,
          ORG_PORT: String(started.ports.org),
          PROFILE_PORT: String(started.ports.profile),
          LICENSE_PORT: String(started.ports.license),
          WORKFLOW_PORT: String(started.ports.workflow)
        }, 4)
        const read = await fetch(`http://127.0.0.1:${started.ports.org}/orgs/${id}`)
        expect(await read.json()).toEqual({ org: { id, name: "Signalled Ltd" } })
        expect(await stopProcess(again)).toBe(0)
      } finally {
        killIfLeft(started)
      }
    }), 90_000)

  // A terminal's Ctrl-C reaches npm and the server at once, and npm forwards its copy too: the
  // server must take the second SIGINT as the same request, not die mid-shutdown.
  it("Ctrl-C in the terminal (SIGINT to the whole process group) shuts down gracefully", () =>
    withDataDir(async (dir) => {
      const started = await npmStart(dir, { ownProcessGroup: true })
      try {
        process.kill(-started.npm.pid!, "SIGINT")
        expect(await eventually(() => !isRunning(started.server), 10_000)).toBe(true)
        await started.exited
        expect(started.output()).toContain("org service stopped")
        // The lock is released only at the end of a clean shutdown, after the database closed.
        expect(await readdir(dir)).not.toContain("onboarding.lock")
      } finally {
        killIfLeft(started)
      }
    }), 90_000)
})
