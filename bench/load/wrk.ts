import { randomBytes } from "node:crypto"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { idMarker, type Scenario } from "../Scenarios.js"
import { type Load, type Measured, runTool, threadsFor } from "./Measured.js"

/** Every byte as a Lua decimal escape: bodies may be binary protobuf. */
const luaString = (bytes: Uint8Array | string) =>
  `"${[...(typeof bytes === "string" ? Buffer.from(bytes, "latin1") : bytes)].map((b) => `\\${b}`).join("")}"`

/** A Lua expression for the text with the marker replaced by the Lua variable `id`. */
const withFreshId = (bytes: Uint8Array | string): string => {
  const text = typeof bytes === "string" ? bytes : Buffer.from(bytes).toString("latin1")
  const at = text.indexOf(idMarker)
  return at === -1
    ? luaString(text)
    : `${luaString(text.slice(0, at))} .. id .. ${luaString(text.slice(at + idMarker.length))}`
}

/**
 * A wrk script for one scenario. Fresh ids are `<run nonce>-<thread>-4000-8000-<counter>`: unique
 * across threads and runs without a random number per request. `done` prints one JSON line.
 */
const script = (scenario: Scenario) => {
  const headers = Object.entries(scenario.headers).map(([k, v]) => `wrk.headers[${luaString(k)}] = ${luaString(v)}`)
  const hasBody = scenario.body.length > 0
  const request = scenario.freshId
    ? `
local counter = 0
function request()
  counter = counter + 1
  local id = string.format("%s-%04x-4000-8000-%012x", nonce, tid, counter)
  return wrk.format(nil, ${withFreshId(scenario.path)}, nil, ${hasBody ? withFreshId(scenario.body) : "nil"})
end`
    : `
wrk.path = ${luaString(scenario.path)}
${hasBody ? `wrk.body = ${luaString(scenario.body)}` : ""}`
  return `
nonce = "${randomBytes(4).toString("hex")}"
tid = 0
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end
wrk.method = "${scenario.method}"
${headers.join("\n")}
${request}
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('{"requests":%d,"micros":%d,"errors":%d,"p50":%d,"p90":%d,"p99":%d,"p999":%d,"max":%d}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9), latency.max))
end
`
}

/** wrk (HTTP/1.1, keep-alive): one connection per unit of concurrency. */
export const wrk = async (scenario: Scenario, baseUrl: string, load: Load, scratch: string): Promise<Measured> => {
  const file = join(scratch, `${scenario.operation}-${scenario.style}.lua`)
  writeFileSync(file, script(scenario))
  const out = await runTool("wrk", [
    `-t${threadsFor(load.concurrency)}`,
    `-c${load.concurrency}`,
    // wrk takes whole seconds.
    `-d${Math.max(1, Math.round(load.seconds))}s`,
    "--timeout",
    "10s",
    "-s",
    file,
    baseUrl
  ])
  const line = out.split("\n").find((l) => l.startsWith("{\"requests\""))
  if (line === undefined) throw new Error(`wrk printed no summary:\n${out}`)
  const r = JSON.parse(line) as Record<"requests" | "micros" | "errors" | "p50" | "p90" | "p99" | "p999" | "max", number>
  const seconds = r.micros / 1e6
  return {
    requests: r.requests,
    errors: r.errors,
    seconds,
    rps: r.requests / seconds,
    p50Ms: r.p50 / 1e3,
    p99Ms: r.p99 / 1e3,
    // wrk's own histogram of every response's latency, in µs.
    p90Ms: r.p90 / 1e3,
    p999Ms: r.p999 / 1e3,
    maxMs: r.max / 1e3
  }
}
