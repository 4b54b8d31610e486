import { expect } from "@effect/vitest"
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"

export const entry = (name: string) => fileURLToPath(new URL(`../../../dist/main/${name}.js`, import.meta.url))

/** The variables the processes read, so the machine's own settings cannot leak into a case. */
const ours =
  /^(DATABASE_.*|DATA_DIR|HOST|PORT|.*_PORT|API_TOKEN|CORS_ORIGINS|LOG_LEVEL|LOG_FORMAT|ACCESS_LOG|MIGRATE|OTEL_.*|MAX_.*|.*_TIMEOUT_MS|SHUTDOWN_.*_MS|GRAPHQL_.*)$/
export const cleanEnvironment = Object.fromEntries(Object.entries(process.env).filter(([name]) => !ours.test(name)))

export interface Ended {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs a process to its end; one still running after `seconds` (a ceiling for a hung process, generous for a busy machine) is killed, and fails the case. */
export const runToEnd = (name: string, env: Record<string, string>, seconds = 180, args: Array<string> = []): Promise<Ended> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      [entry(name), ...args],
      { env: { ...cleanEnvironment, ...env }, timeout: seconds * 1000, killSignal: "SIGKILL" },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : (error.code as number | null) ?? null, stdout, stderr })
    )
  })

/** The process failed, and said why in one line on stderr before it listened on anything. */
export const expectOneLine = (ended: Ended, line: string | RegExp) => {
  expect(ended.code).not.toBe(0)
  expect(ended.code).not.toBe(null)
  expect(ended.stderr.split("\n")).toHaveLength(2) // the line and the newline ending it
  if (typeof line === "string") expect(ended.stderr).toBe(`${line}\n`)
  else expect(ended.stderr).toMatch(line)
  // Told before anything started: the database is never opened for a bad setting.
  expect(ended.stdout).not.toContain("listening on")
}
