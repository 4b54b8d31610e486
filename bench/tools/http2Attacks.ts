/**
 * Issue 37's HTTP/2 attacks, measured side by side on our all-in-one process (embedded database,
 * in memory) and on a bare node:http2 server (bareHttp2.ts): figures for docs/reliability.md, not
 * assertions (test/reliability/http2-attacks.test.ts asserts what does not depend on speed).
 *
 * - rapid reset from 4 and 16 connections (test/reliability/support/h2RawAttacker.mjs, a child
 *   process, reconnecting after each GOAWAY) for `seconds`: the server's CPU per stream sent and per
 *   stream it took (ids up to its GOAWAY's last stream), and the worst `/healthz` of another port,
 *   probed every 100 ms on a new HTTP/2 connection (15 s without an answer: counted as none);
 * - 11 x 100 and 200 x 10 slow-body streams (a byte every 5 s): of 40 ordinary `GET /orgs/<id>`
 *   from another connection, how many were answered (404), refused (503) or not answered in 15 s;
 *   our process also with API_TOKEN set, the attacker and the caller both carrying it.
 *
 * - issue 61's rapid reset (`leftOpenStorm`), alone with `ending`: 16 connections leaving every
 *   connection the server ends open and unread, 20 s; connections still open 3 s after it.
 *
 * Usage (after npm run build and tsc -p tsconfig.bench.json, from the repository's root):
 *   node dist/bench/bench/tools/http2Attacks.js [seconds per storm, default 5]
 *   node dist/bench/bench/tools/http2Attacks.js 20 ending
 * Only 127.0.0.1; every attack is bounded in time (the attacker stops itself after `seconds` + 60).
 */
import { spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as http2 from "node:http2"
import { startAllInOne } from "../AllInOne.js"
import { startJsonLinesChild } from "../JsonLinesChild.js"
import { cpuMicros, freePort, type Started, stop } from "../Processes.js"

const seconds = Number(process.argv[2] ?? 5)
const attackerScript = "test/reliability/support/h2RawAttacker.mjs"
const token = "bench-token-http2-attacks"

const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis))

/** One HTTP/2 GET on a new connection: status and milliseconds, or undefined status after `waitMillis`. */
const h2Get = (url: string, path: string, headers: http2.OutgoingHttpHeaders = {}, waitMillis = 15_000) =>
  new Promise<{ status: number | undefined; millis: number }>((resolve) => {
    const began = performance.now()
    const session = http2.connect(url)
    const done = (status: number | undefined) => {
      clearTimeout(timer)
      session.destroy()
      resolve({ status, millis: performance.now() - began })
    }
    const timer = setTimeout(() => done(undefined), waitMillis)
    session.on("error", () => done(undefined))
    const stream = session.request({ ":path": path, ...headers })
    stream.on("response", (incoming) => done(Number(incoming[":status"])))
    stream.on("error", () => done(undefined))
    stream.end()
  })

interface Attack {
  readonly lines: Array<any>
  readonly stop: () => Promise<any>
}

const attack = (options: Record<string, unknown>): Attack => {
  const child = startJsonLinesChild(attackerScript, { maxMillis: (seconds + 60) * 1000, ...options })
  return {
    lines: child.lines,
    stop: async () => {
      await child.stop(30_000)
      return child.lines.find((line) => line.done === true)
    }
  }
}

/** Probes `url`'s /healthz every 100 ms until `until` resolves: the worst time, and probes with no answer. */
const probeWhile = async (url: string, until: Promise<unknown>) => {
  let over = false
  until.then(() => (over = true))
  const probes: Array<Promise<{ status: number | undefined; millis: number }>> = []
  while (!over) {
    probes.push(h2Get(url, "/healthz"))
    await sleep(100)
  }
  const results = await Promise.all(probes)
  return {
    probes: results.length,
    worstMillis: Math.round(Math.max(...results.map((r) => r.millis))),
    unanswered: results.filter((r) => r.status !== 200).length
  }
}

const resetStorm = async (server: Started, urls: ReadonlyArray<string>, connections: number) => {
  const before = cpuMicros(server.child.pid!)
  const attacker = attack({ mode: "reset", url: urls[0], connections, reconnect: true })
  const probing = probeWhile(urls[1]!, sleep(seconds * 1000))
  await sleep(seconds * 1000)
  const report = await attacker.stop()
  const cpu = cpuMicros(server.child.pid!) - before
  const health = await probing
  const goaways = attacker.lines.filter((l) => l.session !== undefined).map((l) => l.goaway?.code ?? "none")
  return {
    server: server.name,
    connections,
    sessions: report.sessions,
    sent: report.sent,
    taken: report.processed,
    cpuMs: Math.round(cpu / 1000),
    cpuMicrosPerSent: +(cpu / report.sent).toFixed(2),
    cpuMicrosPerTaken: +(cpu / report.processed).toFixed(2),
    goawayCodes: [...new Set(goaways)],
    otherPortHealthz: health
  }
}

/**
 * Issue 61's rapid reset: `connections` attackers for `attackSeconds`, headers HPACK-encoded as a
 * client's encoder sends them, each leaving every connection the server ends open and unread and
 * opening another. Afterwards: how many of its connections the server has not closed 3 s after the
 * attack stopped, and the worst `/healthz` of another port during it.
 */
const leftOpenStorm = async (server: Started, urls: ReadonlyArray<string>, connections: number, attackSeconds: number) => {
  const attacker = attack({
    mode: "reset", url: urls[0], connections, reconnect: true, leaveOpen: true, compact: true, lingerMillis: 3_000,
    maxMillis: attackSeconds * 1000
  })
  const probing = probeWhile(urls[1]!, sleep(attackSeconds * 1000))
  await sleep(attackSeconds * 1000)
  const report = await attacker.stop()
  const health = await probing
  const goaways = attacker.lines.filter((l) => l.session !== undefined && l.goaway !== null).map((l) => l.goaway.code)
  const codes: Record<string, number> = {}
  for (const code of goaways) codes[code] = (codes[code] ?? 0) + 1
  return {
    server: server.name,
    attack: `${connections} connections, ${attackSeconds} s, ended ones left open`,
    connectionsOpened: report.sessions,
    stillOpen3sAfter: report.lingered.open,
    goawayCodes: codes,
    otherPortHealthz: health
  }
}

const slowBodies = async (server: Started, url: string, connections: number, streams: number, withToken: boolean) => {
  const headers = withToken ? { authorization: `Bearer ${token}` } : {}
  const attacker = attack({
    mode: "slowBody", url, connections, streams, method: "PUT", everyMillis: 5_000, ...(withToken ? { token } : {})
  })
  // Until every stream has its first decision from the server, or 20 s.
  for (let waited = 0; waited < 20_000; waited += 250) {
    const last = attacker.lines.at(-1)
    if (last?.byOutcome !== undefined && (last.byOutcome.open ?? 0) < last.streams && waited >= 2_000) break
    await sleep(250)
  }
  const answers: Array<number | undefined> = []
  for (let i = 0; i < 40; i++) answers.push((await h2Get(url, `/orgs/${randomUUID()}`, headers)).status)
  const report = await attacker.stop()
  return {
    server: server.name,
    attack: `${connections} x ${streams}${withToken ? " with the token" : ""}`,
    attacker: report.byOutcome,
    ordinaryCalls: {
      answered: answers.filter((s) => s === 404 || s === 200).length,
      refused503: answers.filter((s) => s === 503).length,
      unanswered: answers.filter((s) => s === undefined).length,
      of: answers.length
    }
  }
}

const bareProcess = async () => {
  const ports = [await freePort(), await freePort()]
  const child = spawn(process.execPath, ["dist/bench/bench/tools/bareHttp2.js", ...ports.map(String)], { stdio: ["ignore", "pipe", "inherit"] })
  const urls = ports.map((port) => `http://127.0.0.1:${port}`)
  for (let i = 0; i < 100 && (await h2Get(urls[1]!, "/healthz", {}, 500)).status !== 200; i++) await sleep(50)
  const server: Started = { name: "bare node:http2", child, readyMillis: 0, output: () => "", errorsLogged: () => 0 }
  return { server, urls }
}

const results: Array<unknown> = []
const run = async (made: { server: Started; urls: ReadonlyArray<string> }, withToken: boolean, storms: boolean) => {
  try {
    if (storms) for (const connections of [4, 16]) results.push(await resetStorm(made.server, made.urls, connections))
    for (const [connections, streams] of [[11, 100], [200, 10]] as const) {
      results.push(await slowBodies(made.server, made.urls[0]!, connections, streams, withToken))
    }
  } finally {
    await stop(made.server)
  }
}

if (process.argv[3] === "ending") {
  // Issue 61's rapid reset alone, 20 s unless `seconds` says otherwise.
  const attackSeconds = process.argv[2] === undefined ? 20 : seconds
  for (const made of [await bareProcess(), await startAllInOne("ours", {})]) {
    try {
      results.push(await leftOpenStorm(made.server, made.urls, 16, attackSeconds))
    } finally {
      await stop(made.server)
    }
  }
} else {
  await run(await bareProcess(), false, true)
  await run(await startAllInOne("ours", {}), false, true)
  await run(await startAllInOne("ours, API_TOKEN set", { API_TOKEN: token }), true, false)
}
for (const result of results) console.log(JSON.stringify(result))
