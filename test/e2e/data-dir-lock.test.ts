import { describe, expect, it } from "@effect/vitest"
import { execFile, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises"
import { hostname, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { freePort, type Running, startProcess, stopProcess } from "./support/Processes.js"

const entry = fileURLToPath(new URL("../../dist/main/all.js", import.meta.url))

const ports = async () => {
  const [org, profile, license, workflow] = await Promise.all([freePort(), freePort(), freePort(), freePort()])
  return { ORG_PORT: String(org), PROFILE_PORT: String(profile), LICENSE_PORT: String(license), WORKFLOW_PORT: String(workflow) }
}

/** `node dist/main/all.js` to its end: the exit code and what it printed on stderr. */
const runToEnd = (env: Record<string, string>) =>
  new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const environment: NodeJS.ProcessEnv = { ...process.env, ...env }
    delete environment["DATABASE_URL"]
    execFile(process.execPath, [entry], { env: environment, timeout: 30_000, killSignal: "SIGKILL" }, (error, _, stderr) =>
      resolve({ code: error === null ? 0 : (error.code as number | null) ?? null, stderr }))
  })

const withDataDir = async (body: (dir: string) => Promise<void>) => {
  const dir = await mkdtemp(join(tmpdir(), "onboarding-lock-e2e-"))
  try {
    await body(dir)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

const createOrg = (port: string, id: string, name: string) =>
  fetch(`http://127.0.0.1:${port}/orgs/${id}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name })
  })

const lockFile = async (dir: string) => join(await realpath(dir), "onboarding.lock")

const lockRecord = (pid: number) => JSON.stringify({ pid, host: hostname(), nonce: randomUUID(), since: new Date().toISOString() })

const deadPid = () =>
  new Promise<number>((resolve) => {
    const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" })
    child.once("exit", () => resolve(child.pid!))
  })

const start = async (dir: string) => {
  const env = await ports()
  const running = await startProcess("all", { ...env, DATA_DIR: dir }, 4)
  return { running, env }
}

describe("one process per embedded data directory", () => {
  it("a second process on the same DATA_DIR exits at once, naming the owner; the first keeps serving its data", () =>
    withDataDir(async (dir) => {
      let first: Running | undefined
      try {
        const started = await start(dir)
        first = started.running
        const id = randomUUID()
        expect((await createOrg(started.env.ORG_PORT, id, "Acknowledged Ltd")).status).toBe(200)

        const second = await runToEnd({ ...(await ports()), DATA_DIR: dir })
        expect(second.code).toBe(1)
        expect(second.stderr).toBe(
          `all: DATA_DIR=${dir} is in use by process ${first.child.pid} on host ${hostname()} ` +
            `(lock file ${await lockFile(dir)}; stop that process or set DATA_DIR)\n`
        )

        const read = await fetch(`http://127.0.0.1:${started.env.ORG_PORT}/orgs/${id}`)
        expect(read.status).toBe(200)

        // kill -9 leaves the lock behind; the next start finds its owner dead and takes it over.
        first.child.kill("SIGKILL")
        await first.exited
        first = undefined
        expect(JSON.parse(await readFile(await lockFile(dir), "utf8")).pid).toBeGreaterThan(0)
        const restarted = await start(dir)
        first = restarted.running
        expect(JSON.parse(await readFile(await lockFile(dir), "utf8")).pid).toBe(first.child.pid)
        const survived = await fetch(`http://127.0.0.1:${restarted.env.ORG_PORT}/orgs/${id}`)
        expect(await survived.json()).toEqual({ org: { id, name: "Acknowledged Ltd" } })
      } finally {
        if (first !== undefined) expect(await stopProcess(first)).toBe(0)
      }
      // A clean stop releases the directory.
      await expect(readFile(await lockFile(dir), "utf8")).rejects.toThrow(/ENOENT/)
    }), 90_000)

  it("a lock left by a dead process is taken over; one held by a live process refuses", () =>
    withDataDir(async (stale) =>
      withDataDir(async (held) => {
        await writeFile(join(stale, "onboarding.lock"), lockRecord(await deadPid()))
        await writeFile(join(held, "onboarding.lock"), lockRecord(process.pid))
        const [running, refused] = await Promise.all([
          start(stale).then(({ running }) => running),
          runToEnd({ ...(await ports()), DATA_DIR: held })
        ])
        try {
          expect(JSON.parse(await readFile(join(stale, "onboarding.lock"), "utf8")).pid).toBe(running.child.pid)
        } finally {
          expect(await stopProcess(running)).toBe(0)
        }
        expect(refused.code).toBe(1)
        expect(refused.stderr).toBe(
          `all: DATA_DIR=${held} is in use by process ${process.pid} on host ${hostname()} ` +
            `(lock file ${await lockFile(held)}; stop that process or set DATA_DIR)\n`
        )
      })), 90_000)
})
