/**
 * Issue 61's connection flood, measured side by side on our all-in-one process (in memory) and on
 * a bare node:http2 server (bareHttp2.ts): figures for docs/reliability.md, not assertions
 * (test/reliability/connection-places.test.ts asserts what does not depend on speed).
 *
 * 1,100 HTTP/2 connections from 127.0.0.2 (test/reliability/support/h2SlowConnections.mjs, a child
 * process), each with one stream whose body comes a byte every 5 s, or with the preface only, each
 * opened again at once when the server closes it. Meanwhile, from 127.0.0.1 for `seconds`: one
 * `GET /orgs/<id>` at a time, each on a new HTTP/2 connection (404 or 200 is an answer; 5 s without
 * one is none), and the attacked port's `/healthz` every 300 ms on a new HTTP/2 connection.
 * Ours at the default limits (MAX_CONNECTIONS 1024, MAX_CONNECTIONS_PER_ADDRESS 256) and with
 * MAX_CONNECTIONS_PER_ADDRESS=0 (as behind a balancer: only making room acts).
 *
 * Usage (after npm run build and npx tsc -b tsconfig.bench.json, from the repository's root):
 *   node dist/bench/bench/tools/connectionFlood.js [seconds, default 15]
 * Only loopback; every run is bounded (the attacker stops itself after `seconds` + 60).
 */
import { spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as http2 from "node:http2"
import { startAllInOne } from "../AllInOne.js"
import { startJsonLinesChild } from "../JsonLinesChild.js"
import { cpuMicros, freePort, type Started, stop } from "../Processes.js"

const seconds = Number(process.argv[2] ?? 15)
const attackers = 1_100
const attackerScript = "test/reliability/support/h2SlowConnections.mjs"

const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis))

/** One HTTP/2 GET on a new connection from 127.0.0.1: its status, undefined after `waitMillis`. */
const h2Get = (url: string, path: string, waitMillis = 5_000) =>
  new Promise<number | undefined>((resolve) => {
    const session = http2.connect(url)
    const done = (status: number | undefined) => {
      clearTimeout(timer)
      session.destroy()
      resolve(status)
    }
    const timer = setTimeout(() => done(undefined), waitMillis)
    session.on("error", () => done(undefined))
    session.on("close", () => done(undefined))
    const stream = session.request({ ":path": path })
    stream.on("response", (incoming) => done(Number(incoming[":status"])))
    stream.on("error", () => done(undefined))
    stream.end()
  })

const attack = (url: string, stream: boolean) => {
  const options = {
    url, connections: attackers, localAddress: "127.0.0.2", stream, everyMillis: 5_000, reconnect: true,
    maxMillis: (seconds + 60) * 1000
  }
  const child = startJsonLinesChild(attackerScript, options)
  return {
    lines: child.lines,
    stop: async () => {
      await child.stop(30_000)
      return child.lines.find((line) => line.done === true)
    }
  }
}

const tally = (statuses: ReadonlyArray<number | undefined>) => ({
  answered: statuses.filter((s) => s === 200 || s === 404).length,
  of: statuses.length
})

const flood = async (server: Started, url: string, stream: boolean) => {
  const attacker = attack(url, stream)
  // Until all 1,100 have connected once, and 3 s more for the port to settle, or 30 s.
  for (let waited = 0; waited < 30_000 && (attacker.lines.at(-1)?.opened ?? 0) < attackers; waited += 250) await sleep(250)
  await sleep(3_000)
  const cpuBefore = cpuMicros(server.child.pid!)
  const until = Date.now() + seconds * 1000
  const health: Array<Promise<number | undefined>> = []
  const probing = (async () => {
    while (Date.now() < until) {
      health.push(h2Get(url, "/healthz"))
      await sleep(300)
    }
  })()
  const calls: Array<number | undefined> = []
  const callMillis: Array<number> = []
  while (Date.now() < until) {
    const began = performance.now()
    calls.push(await h2Get(url, `/orgs/${randomUUID()}`))
    callMillis.push(performance.now() - began)
  }
  callMillis.sort((a, b) => a - b)
  await probing
  const healthz = await Promise.all(health)
  const cpu = cpuMicros(server.child.pid!) - cpuBefore
  const report = await attacker.stop()
  return {
    server: server.name,
    attack: stream ? "slow body" : "preface only",
    calls: { ...tally(calls), p50Millis: Math.round(callMillis[Math.floor(callMillis.length / 2)] ?? 0) },
    healthz: tally(healthz),
    serverCpuMs: Math.round(cpu / 1000),
    // Settled: connected, and the server has taken what it sent (those still connecting are not).
    attackerHeldAtEnd: report?.settled,
    attackerConnectionsOpened: report?.opened,
    attackerEndings: report?.endings
  }
}

const ourProcess = async (name: string, env: Record<string, string>) => {
  const { server, urls } = await startAllInOne(name, env)
  return { server, url: urls[0]! }
}

const bareProcess = async () => {
  const port = await freePort()
  const child = spawn(process.execPath, ["dist/bench/bench/tools/bareHttp2.js", String(port)], { stdio: ["ignore", "pipe", "inherit"] })
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; i < 100 && (await h2Get(url, "/healthz", 500)) !== 200; i++) await sleep(50)
  const server: Started = { name: "bare node:http2", child, readyMillis: 0, output: () => "", errorsLogged: () => 0 }
  return { server, url }
}

const only = process.argv[3]
const results: Array<unknown> = []
for (const stream of [true, false]) {
  if (only !== undefined && only !== (stream ? "slow" : "preface")) continue
  for (const made of [() => bareProcess(), () => ourProcess("ours", {}), () => ourProcess("ours, MAX_CONNECTIONS_PER_ADDRESS=0", { MAX_CONNECTIONS_PER_ADDRESS: "0" })]) {
    const { server, url } = await made()
    try {
      const result = await flood(server, url, stream)
      console.log(JSON.stringify(result))
      results.push(result)
    } finally {
      await stop(server)
    }
  }
}
