import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import * as net from "node:net"

/** A process under measurement: its pid for memory readings and how long it took to be ready. */
export interface Started {
  readonly name: string
  readonly child: ChildProcess
  readonly readyMillis: number
  /** What it printed: the start in full, then, past `keptBytes`, only the latest `keptBytes` or so. */
  readonly output: () => string
  /**
   * Errors it logged: a GraphQL error or a gRPC status arrives with HTTP 200, which the load
   * generators count as success, but the services log every internal one (pretty or JSON lines alike).
   */
  readonly errorsLogged: () => number
}

const keptBytes = 256 * 1024
const errorLine = /\bERROR\b|"level":"error"/

/**
 * A process's output, read as it comes: its error lines counted, its start and its latest lines
 * kept. All of it would be every access line of a run (hundreds of MB over a full one) held by
 * the benchmark's own process, which shares the machine with the processes it measures.
 */
export const outputReader = () => {
  let head = ""
  // The latest chunks, dropped from the front as they pass `keptBytes`: not one string sliced on
  // every chunk, which would copy the whole tail each time.
  const tail: Array<string> = []
  let tailLength = 0
  let errors = 0
  // Each stream's unfinished last line: stdout's and stderr's chunks interleave.
  const partial = { stdout: "", stderr: "" }
  return {
    add: (stream: keyof typeof partial, chunk: string) => {
      if (head.length < keptBytes) head += chunk
      else {
        tail.push(chunk)
        tailLength += chunk.length
        while (tailLength - tail[0]!.length >= keptBytes) tailLength -= tail.shift()!.length
      }
      const lines = (partial[stream] + chunk).split("\n")
      partial[stream] = lines.pop() ?? ""
      for (const line of lines) if (errorLine.test(line)) errors++
    },
    text: () => (tail.length === 0 ? head : `${head}\n[…]\n${tail.join("")}`),
    errors: () => errors + [partial.stdout, partial.stderr].filter((line) => errorLine.test(line)).length
  }
}

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })

/** Resident set size in MiB, from the kernel's own accounting. */
export const rssMiB = (pid: number): number => {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
  return match === null ? NaN : Number(match[1]) / 1024
}

/**
 * CPU time (user + system) a process has used, in microseconds. Per request it is steadier than
 * req/s on a machine whose two cores the load generator and PostgreSQL share.
 */
export const cpuMicros = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /, "").split(" ")
  // utime and stime are fields 14 and 15 of the line, in clock ticks (100 per second on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10_000
}

const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis))

/**
 * Spawns a Node entry point and measures start-to-ready: until every `readyUrls` answers 200 (our
 * services' `/readyz`, which checks the database), or, for baselines, until it prints "listening".
 */
export const start = async (options: {
  readonly name: string
  readonly script: string
  readonly env: Readonly<Record<string, string>>
  readonly readyUrls?: ReadonlyArray<string>
  /** Node's own flags (`--cpu-prof`), before the script. */
  readonly nodeArgs?: ReadonlyArray<string>
}): Promise<Started> => {
  const began = performance.now()
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), options.script], {
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  const read = outputReader()
  child.stdout.on("data", (chunk: Buffer) => read.add("stdout", chunk.toString()))
  child.stderr.on("data", (chunk: Buffer) => read.add("stderr", chunk.toString()))
  let exited = false
  child.once("exit", () => (exited = true))
  const isReady = async () => {
    if (options.readyUrls === undefined) return read.text().includes("listening on")
    for (const url of options.readyUrls) {
      const ok = await fetch(url).then((r) => r.ok, () => false)
      if (!ok) return false
    }
    return true
  }
  while (!(await isReady())) {
    if (exited) throw new Error(`${options.name} exited before it was ready:\n${read.text()}`)
    if (performance.now() - began > 60_000) {
      child.kill("SIGKILL")
      throw new Error(`${options.name} was not ready within 60 s:\n${read.text()}`)
    }
    await sleep(10)
  }
  return { name: options.name, child, readyMillis: performance.now() - began, output: read.text, errorsLogged: read.errors }
}

export const stop = async (started: Started): Promise<void> => {
  if (started.child.exitCode !== null) return
  const exited = new Promise((resolve) => started.child.once("exit", resolve))
  started.child.kill("SIGTERM")
  const timer = setTimeout(() => started.child.kill("SIGKILL"), 10_000)
  await exited
  clearTimeout(timer)
}

/** Samples the processes' RSS while `during` runs; answers with each one's peak, in the order given. */
export const peakRss = async <A>(pids: ReadonlyArray<number>, during: () => Promise<A>): Promise<[A, Array<number>]> => {
  const peaks = pids.map(rssMiB)
  const timer = setInterval(() => {
    pids.forEach((pid, i) => {
      try {
        peaks[i] = Math.max(peaks[i]!, rssMiB(pid))
      } catch {
        // the process may be ending
      }
    })
  }, 100)
  try {
    return [await during(), peaks]
  } finally {
    clearInterval(timer)
  }
}
