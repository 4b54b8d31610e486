import * as v8 from "node:v8"
import * as vm from "node:vm"
import { Worker } from "node:worker_threads"

/*
 * A flood of gRPC health Watch streams, as the reproduction sent it: many HTTP/2
 * connections, each with as many streams as the server allows, none carrying a token. The client
 * runs in a worker thread: its own event loop, and its own V8 heap, so what the test measures of
 * the main thread's heap is the server's alone.
 */

/** What became of the flood's streams so far. */
export interface FloodState {
  /** Streams that received their first message. */
  readonly watching: number
  /** Streams answered with a gRPC status and no message, by status. */
  readonly refused: Readonly<Record<string, number>>
  /** Streams that ended any other way (reset, error) before a message. */
  readonly failed: number
}

// Plain JavaScript: a worker is given source, not TypeScript. A Watch request is one envelope
// holding an empty HealthCheckRequest (service "": the port as a whole).
const client = `
const http2 = require("node:http2")
const { parentPort, workerData } = require("node:worker_threads")
const state = { watching: 0, refused: {}, failed: 0 }
const sessions = []
const request = Buffer.from([0, 0, 0, 0, 0])
for (const target of workerData.targets) {
  for (let c = 0; c < target.connections; c++) {
    const session = http2.connect(target.url)
    session.on("error", () => {})
    sessions.push(session)
    for (let s = 0; s < target.streamsPerConnection; s++) {
      const stream = session.request({
        ":method": "POST",
        ":path": "/grpc.health.v1.Health/Watch",
        "content-type": "application/grpc",
        te: "trailers",
        "user-agent": "watch-flood"
      })
      let settled = false
      const settle = (how) => {
        if (settled) return
        settled = true
        how()
      }
      stream.on("response", (headers) => {
        const status = headers["grpc-status"]
        if (status !== undefined) settle(() => (state.refused[status] = (state.refused[status] ?? 0) + 1))
      })
      stream.on("data", () => settle(() => state.watching++))
      stream.on("close", () => settle(() => state.failed++))
      stream.on("error", () => {})
      stream.end(request)
    }
  }
}
const report = () => parentPort.postMessage({ state })
const timer = setInterval(report, 100)
parentPort.on("message", (message) => {
  if (message !== "close") return
  clearInterval(timer)
  report()
  for (const session of sessions) session.destroy()
  parentPort.postMessage({ closed: true })
})
`

export interface Flood {
  /** The latest state the worker reported. */
  readonly state: () => FloodState
  /** Destroys every connection; resolves once the worker has, and has stopped. */
  readonly close: () => Promise<void>
}

export const watchFlood = (
  targets: ReadonlyArray<{ readonly url: string; readonly connections: number; readonly streamsPerConnection: number }>
): Flood => {
  const worker = new Worker(client, { eval: true, workerData: { targets } })
  let latest: FloodState = { watching: 0, refused: {}, failed: 0 }
  worker.on("message", (message: { state?: FloodState }) => {
    if (message.state !== undefined) latest = message.state
  })
  return {
    state: () => latest,
    close: () =>
      new Promise<void>((resolve) => {
        worker.on("message", (message: { closed?: boolean }) => {
          if (message.closed === true) void worker.terminate().then(() => resolve())
        })
        worker.postMessage("close")
      })
  }
}

/**
 * The main thread's V8 heap in use after full collections: what is live, garbage aside. `gc` is
 * V8's own, exposed through its documented flag for this process (the test runner does not start
 * workers with `--expose-gc`).
 */
export const liveHeapBytes = (): number => {
  v8.setFlagsFromString("--expose-gc")
  const gc = vm.runInNewContext("gc") as () => void
  gc()
  gc()
  return process.memoryUsage().heapUsed
}
