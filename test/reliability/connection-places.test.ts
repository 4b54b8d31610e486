import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import * as net from "node:net"
import { listen } from "../../src/transports/http/PortListener.js"
import { Services } from "../support/Services.js"
import { inProcessServers } from "../support/InProcessServers.js"
import { testDatabaseKind } from "../support/TestDatabase.js"
import { type Attacker, type SlowConnectionsReport, startSlowConnections } from "./support/h2Attacker.js"
import { h2Session, healthzOnNewConnection } from "./support/slowStreams.js"

/*
 * Issue 61, item 2: a port at MAX_CONNECTIONS closes the connection worth least to make room for
 * a new one (no request yet, then bodies awaited longest, then idle longest), an HTTP/2 one with
 * GOAWAY NO_ERROR; one address holds at most MAX_CONNECTIONS_PER_ADDRESS places. Asserted: who was
 * closed, with which GOAWAY, who was answered; waits are conditions with ceilings.
 */

const ceiling = 60_000

/** A raw TCP connection; `closed` resolves when the server closes it. */
const connect = (port: number, localAddress = "127.0.0.1") =>
  new Promise<{ socket: net.Socket; received: () => Buffer; closed: Promise<void>; isClosed: () => boolean }>((resolve, reject) => {
    const socket = net.connect({ port, host: "127.0.0.1", localAddress })
    const chunks: Array<Buffer> = []
    let open = true
    const closed = new Promise<void>((done) => socket.once("close", () => done(void (open = false))))
    socket.on("data", (chunk: Buffer) => chunks.push(chunk))
    socket.on("error", () => {})
    socket.once("error", reject)
    socket.once("connect", () => resolve({ socket, received: () => Buffer.concat(chunks), closed, isClosed: () => !open }))
  })

/** Resolves once `test()` holds (polled), or fails the test after `ceiling`. */
const until = (test: () => boolean, what: () => string) =>
  Effect.promise(async () => {
    const started = Date.now()
    while (!test() && Date.now() - started < ceiling) await new Promise((resolve) => setTimeout(resolve, 10))
    return test()
  }).pipe(Effect.flatMap((held) => (held ? Effect.void : Effect.dieMessage(`not within ${ceiling} ms: ${what()}`))))

/**
 * Long enough for a connection with no request yet to count as one that has had time to make it
 * (ConnectionPlaces.ts, 1 s); a connection's age only grows, so a busy machine cannot break this.
 */
const pastYoung = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 1_100)))

/** The GOAWAY frames (type 7) in what a raw HTTP/2 client received: [error code, last stream id]. */
const goaways = (bytes: Buffer) => {
  const found: Array<[number, number]> = []
  for (let at = 0; at + 9 <= bytes.length; at += 9 + bytes.readUIntBE(at, 3)) {
    if (bytes[at + 3] === 7) found.push([bytes.readUInt32BE(at + 13), bytes.readUInt32BE(at + 9) & 0x7fffffff])
  }
  return found
}

describe("connection places: the one worth least makes room", () => {
  it.effect("at MAX_CONNECTIONS a new connection closes one with no request yet, then one awaiting its body, then the idle one; with every one busy, it is refused", () =>
    Effect.gen(function*() {
      const reached = new Set<string>()
      const { port } = yield* listen((request, response) => {
        reached.add(request.url ?? "")
        if (request.url === "/ok") response.end("ok")
        else request.resume() // /hang and /body: never answered
      }, {
        host: "127.0.0.1",
        port: 0,
        shutdownGraceMillis: 100,
        maxConnections: 4,
        maxConnectionsPerAddress: 0,
        headersTimeoutMillis: 60_000,
        requestTimeoutMillis: 60_000,
        idleTimeoutMillis: 60_000,
        maxStreamsPerConnection: 100,
        maxStreamResets: 400
      })
      const reach = (path: string) => until(() => reached.has(path), () => `${path} never reached the handler`)
      const idle = yield* Effect.promise(() => connect(port))
      idle.socket.write("GET /ok HTTP/1.1\r\nhost: a\r\n\r\n")
      yield* until(() => idle.received().toString().includes("ok"), () => "no answer to /ok")
      const awaiting = yield* Effect.promise(() => connect(port))
      awaiting.socket.write("PUT /body HTTP/1.1\r\nhost: a\r\ncontent-length: 100\r\n\r\n{")
      yield* reach("/body")
      const prefaceOnly = yield* Effect.promise(() => connect(port))
      prefaceOnly.socket.write(Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00", "latin1"))
      yield* until(() => prefaceOnly.received().length > 0, () => "no SETTINGS from the server")
      const busy = yield* Effect.promise(() => connect(port))
      busy.socket.write("GET /hang HTTP/1.1\r\nhost: a\r\n\r\n")
      yield* reach("/hang")

      // A connection with no request yet goes first once it has had time to make one (ConnectionPlaces.ts).
      yield* pastYoung
      const all = { idle, awaiting, prefaceOnly, busy }
      const open = () => Object.entries(all).filter(([, c]) => !c.isClosed()).map(([name]) => name)
      const newcomers: Array<{ readonly isClosed: () => boolean; readonly socket: net.Socket }> = []
      for (const [i, gone] of (["prefaceOnly", "awaiting", "idle"] as const).entries()) {
        const newcomer = yield* Effect.promise(() => connect(port))
        newcomers.push(newcomer)
        newcomer.socket.write(`GET /hang${i} HTTP/1.1\r\nhost: a\r\n\r\n`)
        yield* reach(`/hang${i}`)
        yield* Effect.promise(() => all[gone].closed)
        expect({ newcomer: i, open: open() }).toEqual({
          newcomer: i,
          open: (["idle", "awaiting", "prefaceOnly", "busy"] as const).filter((name) =>
            !["prefaceOnly", "awaiting", "idle"].slice(0, i + 1).includes(name))
        })
      }
      // The HTTP/2 one was told to go with GOAWAY NO_ERROR, having taken no stream (Node sends it
      // again as the session ends: every one says the same).
      expect([...new Set(goaways(prefaceOnly.received()).map(String))]).toEqual(["0,0"])
      // Every place now answers a call: the next connection is refused, and they all stay.
      const refused = yield* Effect.promise(() => connect(port))
      refused.socket.write("GET /ok HTTP/1.1\r\nhost: a\r\n\r\n")
      yield* Effect.promise(() => refused.closed)
      expect({ answered: refused.received().length, busyOpen: !busy.isClosed(), newcomersOpen: newcomers.filter((c) => !c.isClosed()).length })
        .toEqual({ answered: 0, busyOpen: true, newcomersOpen: 3 })
      for (const c of [busy, ...newcomers]) c.socket.destroy()
    }).pipe(Effect.scoped))
})

const maxConnections = 8
const perAddress = 4

/** Starts the attack and waits until `settled` of its connections are settled (the server took what each sent). */
const filled = (options: Parameters<typeof startSlowConnections>[0], settled: number) =>
  Effect.gen(function*() {
    const attacker = startSlowConnections(options)
    const ready = yield* Effect.promise(() =>
      attacker.waitFor((line: SlowConnectionsReport) => (line.settled >= settled ? line : undefined), ceiling)
    )
    expect(ready, `the attack never settled: ${JSON.stringify(attacker.lines.at(-1))}`).toBeDefined()
    return attacker
  })

/** Waits until the attacker has counted `count` endings of `kind`, then stops it: its final report. */
const endingsThenStop = (attacker: Attacker, kind: string, count: number) =>
  Effect.gen(function*() {
    yield* Effect.promise(() =>
      attacker.waitFor((line: SlowConnectionsReport) => ((line.endings[kind] ?? 0) >= count ? line : undefined), ceiling)
    )
    const final: SlowConnectionsReport = yield* Effect.promise(() => attacker.stop())
    return final
  })

/** A GET on a new HTTP/2 connection from 127.0.0.1, kept open: its status. */
const h2GetOnNewConnection = (url: string, path: string) =>
  Effect.promise(async () => {
    const session = await h2Session(url)
    const status = await new Promise<number | string>((resolve) => {
      const stream = session.request({ ":path": path })
      stream.on("response", (headers) => resolve(Number(headers[":status"])))
      stream.on("close", () => resolve(`closed (RST_STREAM ${stream.rstCode})`))
      stream.resume()
    })
    return { status, session }
  })

describe(`connection places, against the four ports (MAX_CONNECTIONS=${maxConnections}, MAX_CONNECTIONS_PER_ADDRESS=${perAddress}; ${testDatabaseKind})`, () => {
  layer(
    inProcessServers({
      maxConnections,
      maxConnectionsPerAddress: perAddress,
      headersTimeoutMillis: 60_000,
      requestTimeoutMillis: 60_000,
      idleTimeoutMillis: 60_000
    }),
    { timeout: 4 * ceiling, excludeTestServices: true }
  )((it) => {
    for (const stream of [true, false]) {
      const kind = stream ? "one slow-body stream each" : "preface only"
      const lastStream = stream ? 1 : 0
      it.effect(`${maxConnections} HTTP/2 connections (${kind}) from 127.0.0.2 and .3 fill the port: new ones from 127.0.0.1 are answered, and two of theirs are sent GOAWAY NO_ERROR, last stream ${lastStream}`, () =>
        Effect.gen(function*() {
          const urls = yield* Services
          const url = stream ? urls.org : urls.profile
          const attackers = yield* Effect.all(["127.0.0.2", "127.0.0.3"].map((localAddress) =>
            filled({ url, connections: perAddress, localAddress, stream, everyMillis: 1_000, maxMillis: 2 * ceiling }, perAddress)
          ))
          // Theirs, not yet having made a request, now count as worth less than an idle caller's.
          yield* pastYoung
          const call = yield* h2GetOnNewConnection(url, `/orgs/${randomUUID()}`)
          const health = yield* Effect.promise(() => healthzOnNewConnection(url, ceiling))
          const endingsOf = (lines: ReadonlyArray<SlowConnectionsReport>) =>
            lines.reduce<Record<string, number>>((sum, line) => {
              for (const [ending, n] of Object.entries(line?.endings ?? {})) sum[ending] = (sum[ending] ?? 0) + n
              return sum
            }, {})
          const ended = () => Object.values(endingsOf(attackers.map((a) => a.lines.at(-1)))).reduce((a, b) => a + b, 0)
          yield* until(() => ended() >= 2, () => JSON.stringify(attackers.map((a) => a.lines.at(-1))))
          const finals: Array<SlowConnectionsReport> = yield* Effect.promise(() => Promise.all(attackers.map((a) => a.stop())))
          call.session.destroy()
          const endings = endingsOf(finals)
          console.log(`${kind}: a call from 127.0.0.1 ${call.status}, /healthz ${health}; the attackers' connections ended ${JSON.stringify(endings)}`)
          expect({ call: call.status, health }).toEqual({ call: 404, health: 200 })
          // Two places made: each for a connection from 127.0.0.1, each an attacker's connection told to go.
          expect(endings).toEqual({ [`goaway 0 last ${lastStream}`]: 2 })
        }), 4 * ceiling)
    }

    it.effect(`one address holds at most MAX_CONNECTIONS_PER_ADDRESS (${perAddress}): its next connections are refused, another address gets in`, () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const attacker = yield* filled(
          { url: urls.license, connections: perAddress + 2, localAddress: "127.0.0.2", maxMillis: 2 * ceiling },
          perAddress
        )
        const final = yield* endingsThenStop(attacker, "refused", 2)
        const health = yield* Effect.promise(() => healthzOnNewConnection(urls.license, ceiling))
        expect({ final: { open: final.open, settled: final.settled, endings: final.endings }, health })
          .toEqual({ final: { open: perAddress, settled: perAddress, endings: { refused: 2 } }, health: 200 })
      }), 4 * ceiling)
  })
})
