import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import type * as http2 from "node:http2"
import * as net from "node:net"
import { defaultSettings } from "../../src/main/Settings.js"
import { Services } from "../support/Services.js"
import { inProcessServers } from "../support/InProcessServers.js"
import { testDatabaseKind } from "../support/TestDatabase.js"
import { type Lingered, type ResetSessionReport, startAttacker } from "./support/h2Attacker.js"
import { clientMagic, frame } from "./support/h2Frames.mjs"
import { h2Session } from "./support/slowStreams.js"

/*
 * Issue 61, item 3: a session that has ended is gone, whoever ended it. What is asserted is who
 * got which GOAWAY and how many connections the server left open once it had time to close
 * them, never how fast: waits are conditions with ceilings far above what they take.
 */

const ceiling = 90_000
const connections = 16
const enhanceYourCalm = 11
const noError = 0

const tally = (values: ReadonlyArray<unknown>) =>
  values.reduce<Record<string, number>>((counts, value) => ({ ...counts, [String(value)]: (counts[String(value)] ?? 0) + 1 }), {})

/** One raw connection's preface and `frames`; resolves with the GOAWAY codes it got and whether the server closed it within `ceilingMillis`. */
const rawConnection = (url: string, frames: Buffer, ceilingMillis: number) =>
  new Promise<{ goaways: Array<number>; closedByServer: boolean }>((resolve) => {
    const target = new URL(url)
    const goaways: Array<number> = []
    let pending = Buffer.alloc(0)
    const socket = net.connect(Number(target.port), target.hostname, () => socket.write(frames))
    const done = (closedByServer: boolean) => {
      clearTimeout(timer)
      socket.destroy()
      resolve({ goaways, closedByServer })
    }
    const timer = setTimeout(() => done(false), ceilingMillis)
    socket.on("data", (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk])
      while (pending.length >= 9 && pending.length >= 9 + pending.readUIntBE(0, 3)) {
        const length = pending.readUIntBE(0, 3)
        if (pending[3] === 7) goaways.push(pending.readUInt32BE(13))
        pending = pending.subarray(9 + length)
      }
    })
    socket.on("error", () => {})
    socket.on("close", () => done(true))
  })

const preface = Buffer.concat([clientMagic, frame(4, 0, 0)])

const h2Get = (session: http2.ClientHttp2Session, path: string) =>
  new Promise<number | string>((resolve) => {
    const stream = session.request({ ":path": path })
    stream.on("response", (incoming) => resolve(Number(incoming[":status"])))
    stream.on("error", (error) => resolve(`error: ${error.message}`))
    stream.on("close", () => resolve(`closed without an answer (RST_STREAM ${stream.rstCode})`))
    stream.resume()
  })

describe(`HTTP/2 sessions that end are gone (${testDatabaseKind})`, () => {
  layer(inProcessServers(), { timeout: 4 * ceiling, excludeTestServices: true })((it) => {
    it.effect(
      `rapid reset from ${connections} connections, compact headers, each ended connection left open and unread: ` +
        `the attacker meets ENHANCE_YOUR_CALM, never nghttp2's INTERNAL_ERROR, and the server closes what it ended`,
      () =>
        Effect.gen(function*() {
          const urls = yield* Services
          const attacker = startAttacker({
            mode: "reset", url: urls.org, connections, reconnect: true, leaveOpen: true, compact: true, together: true,
            lingerMillis: 10_000, maxMillis: 2 * ceiling
          })
          // Condition: three times as many connections ended as the attack keeps going at once.
          const underWay = yield* Effect.promise(() =>
            attacker.waitFor(() => (attacker.lines.filter((l) => l.goaway != null).length >= 3 * connections ? true : undefined), ceiling)
          )
          const final = yield* Effect.promise(() => attacker.stop())
          const ended: Array<ResetSessionReport> = attacker.lines.filter((l) => l.session !== undefined && l.goaway !== null)
          const codes = tally(ended.map((s) => s.goaway!.code))
          const lingered: Lingered = final.lingered
          console.log(
            `rapid reset, compact, leaving connections open: ${final.sessions} connections, GOAWAY codes ${JSON.stringify(codes)}; ` +
              `${lingered.open} of ${lingered.connections} still open ${lingered.afterMillis} ms after the attack`
          )
          expect(underWay, `the attack never got going: ${JSON.stringify(attacker.lines.slice(-3))}`).toBe(true)
          // ENHANCE_YOUR_CALM; NO_ERROR only where a connection still in the attack did not answer the
          // server's PING in time on a loaded machine (EndingSessions.ts). Never INTERNAL_ERROR.
          expect({ otherCodes: Object.keys(codes).filter((code) => code !== `${enhanceYourCalm}` && code !== `${noError}`) })
            .toEqual({ otherCodes: [] })
          expect({ mostlyCalm: (codes[enhanceYourCalm] ?? 0) >= 0.8 * ended.length }).toEqual({ mostlyCalm: true })
          // What the server ended it closed: at most the connections the attack was still using stay.
          expect({ openAfter: lingered.open <= connections, of: lingered.connections > 3 * connections })
            .toEqual({ openAfter: true, of: true })
        }),
      4 * ceiling
    )

    it.effect("a protocol error: nghttp2's GOAWAY PROTOCOL_ERROR, and the connection closed, not left to IDLE_TIMEOUT_MS", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        // DATA on stream 0 (RFC 9113 §6.1): nghttp2 ends the session itself and tells Node nothing.
        const outcome = yield* Effect.promise(() => rawConnection(urls.org, Buffer.concat([preface, frame(0, 0, 0, Buffer.from("x"))]), 10_000))
        expect(outcome).toEqual({ goaways: [1], closedByServer: true })
        expect(defaultSettings.idleTimeoutMillis).toBeGreaterThan(10_000)
      }), ceiling)

    it.effect("an honest connection left idle past the server's PING is kept, and answers again", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const session = yield* Effect.promise(() => h2Session(urls.org))
        const first = yield* Effect.promise(() => h2Get(session, `/orgs/${randomUUID()}`))
        // Long enough for several quiet spells and their PINGs (EndingSessions.ts), not a timing.
        yield* Effect.sleep("3 seconds")
        const second = yield* Effect.promise(() => h2Get(session, `/orgs/${randomUUID()}`))
        const closed = session.closed || session.destroyed
        session.destroy()
        expect({ first, second, closed }).toEqual({ first: 404, second: 404, closed: false })
      }), ceiling)
  })
})
