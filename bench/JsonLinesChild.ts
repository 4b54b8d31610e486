import { spawn } from "node:child_process"

/*
 * A node script run as a child process that is told its options as JSON (its first argument),
 * prints one JSON object a line on stdout, and stops when told "stop" on stdin: the raw HTTP/2
 * attackers of test/reliability/support, run by the reliability tests and by bench/tools alike.
 */

export interface JsonLinesChild {
  /** Every JSON line the child has printed so far. */
  readonly lines: Array<any>
  /** Resolves with the first line (past or future) that `test` accepts, or undefined once the child has exited or after `ceilingMillis`. */
  readonly waitFor: <A>(test: (line: any) => A | undefined, ceilingMillis: number) => Promise<A | undefined>
  /** Says "stop" on the child's stdin (once), waits up to `graceMillis` for it to exit, then kills it. */
  readonly stop: (graceMillis: number) => Promise<void>
  /** Says "stop" on the child's stdin, unless it has exited or been told already. */
  readonly askToStop: () => void
}

export const startJsonLinesChild = (script: string, options: object): JsonLinesChild => {
  const child = spawn(process.execPath, [script, JSON.stringify(options)], { stdio: ["pipe", "pipe", "inherit"] })
  const lines: Array<any> = []
  const listeners = new Set<() => void>()
  let pending = ""
  child.stdout.setEncoding("utf8")
  child.stdout.on("data", (text: string) => {
    pending += text
    const complete = pending.split("\n")
    pending = complete.pop() ?? ""
    for (const line of complete) if (line.trim() !== "") lines.push(JSON.parse(line))
    for (const listener of listeners) listener()
  })
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  exited.then(() => {
    for (const listener of listeners) listener()
  })
  const waitFor = <A>(test: (line: any) => A | undefined, ceilingMillis: number) =>
    new Promise<A | undefined>((resolve) => {
      const check = () => {
        for (const line of lines) {
          const found = test(line)
          if (found !== undefined) return finish(found)
        }
        if (child.exitCode !== null) finish(undefined)
      }
      const finish = (found: A | undefined) => {
        clearTimeout(timer)
        listeners.delete(check)
        resolve(found)
      }
      const timer = setTimeout(() => finish(undefined), ceilingMillis)
      listeners.add(check)
      check()
    })
  const askToStop = () => {
    if (child.exitCode === null && !child.stdin.writableEnded) child.stdin.end("stop\n")
  }
  const stop = async (graceMillis: number) => {
    askToStop()
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, graceMillis))])
    if (child.exitCode === null) child.kill("SIGKILL")
  }
  return { lines, waitFor, stop, askToStop }
}
