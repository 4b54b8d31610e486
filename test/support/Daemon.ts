import { Effect } from "effect"
import type { ChildProcess } from "node:child_process"

/** A helper process a test runs beside the services (haproxy, PgBouncer). */
export interface Daemon {
  readonly child: ChildProcess
  /** Everything it printed so far, for a failure's message. */
  readonly output: () => string
}

/**
 * Starts a helper process for the life of the scope: SIGTERM when the scope closes, SIGKILL if it
 * has not gone 5 s later. Only this child is signalled, never anything found by name.
 */
export const spawnDaemon = (name: string, start: () => ChildProcess) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const child = start()
      let output = ""
      const keep = (chunk: Buffer) => {
        output = (output + chunk.toString()).slice(-20_000)
      }
      child.stdout?.on("data", keep)
      child.stderr?.on("data", keep)
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
      return { daemon: { child, output: () => `${name}: ${output}` } satisfies Daemon, exited }
    }),
    ({ daemon, exited }) =>
      Effect.promise(async () => {
        if (daemon.child.exitCode !== null || daemon.child.signalCode !== null) return
        daemon.child.kill("SIGTERM")
        const timer = setTimeout(() => daemon.child.kill("SIGKILL"), 5_000)
        await exited
        clearTimeout(timer)
      })
  ).pipe(Effect.map(({ daemon }) => daemon))
