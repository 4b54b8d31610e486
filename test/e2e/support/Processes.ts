import { type ChildProcess, spawn } from "node:child_process"
import * as net from "node:net"
import { fileURLToPath } from "node:url"
import { join } from "node:path"

/*
 * Spawning the real processes, on the database each caller names. Nothing here reads which engine
 * the tests run on: a suite that uses only this runs the same on either (see SqlSuites.ts).
 */

const mainDirectory = fileURLToPath(new URL("../../../dist/main/", import.meta.url))

/** Below Linux's ephemeral range (32768–60999), where no client connection takes a local port. */
const firstPort = 20_000
const lastPort = 32_767
const handedOut = new Set<number>()

const bindable = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = net.createServer()
    server.once("error", () => resolve(false))
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)))
  })

/**
 * A port a spawned process can listen on. Not one the kernel picks (port 0): those come from the
 * ephemeral range, where the many client connections of tests running beside this one take their
 * local ports, and one of them took a spawned server's port in the moment between this check and
 * its listen. A random port below that range, not handed out before in this process, is free of both.
 */
export const freePort = async (): Promise<number> => {
  for (;;) {
    const port = firstPort + Math.floor(Math.random() * (lastPort - firstPort + 1))
    if (handedOut.has(port)) continue
    handedOut.add(port)
    if (await bindable(port)) return port
  }
}

export interface Running {
  readonly child: ChildProcess
  /** Everything the process printed so far. */
  readonly output: () => string
  /** Resolves with the exit code when the process ends. */
  readonly exited: Promise<number | null>
}

/**
 * Starts `dist/main/<entry>.js` and waits until it says it listens on `listeners` ports: a process
 * that exits first fails at once; the ceiling is only for one that hangs (a busy machine's start
 * can take many times a quiet one's).
 */
export const startProcess = (
  entry: string,
  env: Record<string, string>,
  listeners: number,
  /** Another build's `dist/main/` (an upgrade's new version); this checkout's by default. */
  from: string = mainDirectory
): Promise<Running> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(from, `${entry}.js`)], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)))
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`${entry} did not start in time:\n${output}`))
    }, 180_000)
    const onOutput = (chunk: Buffer) => {
      output += chunk.toString()
      if ((output.match(/listening on/g) ?? []).length >= listeners) {
        clearTimeout(timer)
        resolve({ child, output: () => output, exited })
      }
    }
    child.stdout.on("data", onOutput)
    child.stderr.on("data", onOutput)
    void exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`${entry} exited with ${code} before listening:\n${output}`))
    })
  })

/** SIGTERM, then the exit code; SIGKILL if it does not stop in time. */
export const stopProcess = async (running: Running): Promise<number | null> => {
  running.child.kill("SIGTERM")
  const timer = setTimeout(() => running.child.kill("SIGKILL"), 20_000)
  const code = await running.exited
  clearTimeout(timer)
  return code
}

/** The all-in-one process on four free loopback ports, its embedded database in memory. */
export const startAllInOne = async (env: Record<string, string> = {}) => {
  const [org, profile, license, workflow] = await Promise.all(Array.from({ length: 4 }, freePort)) as [number, number, number, number]
  const running = await startProcess("all", {
    DATA_DIR: "memory://",
    ORG_PORT: String(org),
    PROFILE_PORT: String(profile),
    LICENSE_PORT: String(license),
    WORKFLOW_PORT: String(workflow),
    ...env
  }, 4)
  const url = (port: number) => `http://127.0.0.1:${port}`
  return { running, ports: [org, profile, license, workflow], org: url(org), workflow: url(workflow) }
}
