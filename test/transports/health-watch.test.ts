import { fromBinary, toBinary, create } from "@bufbuild/protobuf"
import { Code, ConnectError, createClient, type Transport } from "@connectrpc/connect"
import {
  compressionGzip,
  createConnectTransport,
  createGrpcTransport,
  createGrpcWebTransport
} from "@connectrpc/connect-node"
import { describe, expect, layer } from "@effect/vitest"
import * as grpc from "@grpc/grpc-js"
import { Effect, Option, Redacted } from "effect"
import {
  Health,
  HealthCheckRequestSchema,
  HealthCheckResponse_ServingStatus as Status,
  HealthCheckResponseSchema
} from "../../src/gen/grpc/health/v1/health_pb.js"
import { Services } from "../support/Services.js"
import { inProcessServers } from "../support/InProcessServers.js"

/*
 * gRPC health Watch is answered by src/transports/health/HealthWatch.ts, not connect-node (what a
 * stream costs there: test/reliability/health-watch-flood.test.ts). These hold it to what
 * connect-node answered, with real clients of every protocol that streams: connect-node's gRPC,
 * gRPC-Web and Connect transports (binary and JSON, HTTP/1.1 and HTTP/2) and @grpc/grpc-js.
 */

const cap = 3
const token = "health-watch-token"
const org = "org.v1beta1.OrgService"

const transports = (baseUrl: string): ReadonlyArray<readonly [string, Transport]> => [
  ["gRPC", createGrpcTransport({ baseUrl })],
  ["gRPC JSON", createGrpcTransport({ baseUrl, useBinaryFormat: false })],
  ["gRPC-Web over HTTP/1.1", createGrpcWebTransport({ baseUrl, httpVersion: "1.1" })],
  ["gRPC-Web JSON over HTTP/2", createGrpcWebTransport({ baseUrl, httpVersion: "2", useBinaryFormat: false })],
  ["Connect over HTTP/2", createConnectTransport({ baseUrl, httpVersion: "2" })],
  ["Connect JSON over HTTP/1.1", createConnectTransport({ baseUrl, httpVersion: "1.1", useBinaryFormat: false })]
]

/** The statuses a Watch yields until it ends or `take` have come, and how it ended. */
const watched = (transport: Transport, service: string, options: { take?: number; timeoutMs?: number } = {}) =>
  Effect.promise(async () => {
    const stop = new AbortController()
    const statuses: Array<Status> = []
    try {
      const deadline = options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }
      for await (const reply of createClient(Health, transport).watch({ service }, { signal: stop.signal, ...deadline })) {
        statuses.push(reply.status)
        if (statuses.length === options.take) {
          stop.abort()
          return { statuses, ended: "taken" as const }
        }
      }
      return { statuses, ended: "ok" as const }
    } catch (error) {
      return { statuses, ended: ConnectError.from(error).code }
    }
  })

/** A Watch held open until `close` is called: its first status, or the code it was refused with. */
const openWatch = (transport: Transport) => {
  const stop = new AbortController()
  const first = (async () => {
    try {
      for await (const reply of createClient(Health, transport).watch({ service: "" }, { signal: stop.signal })) return reply.status
      return "ended"
    } catch (error) {
      return ConnectError.from(error).code
    }
  })()
  return { first, close: () => stop.abort() }
}

describe("gRPC health Watch, every streaming protocol", () => {
  layer(
    inProcessServers({ apiToken: Option.some(Redacted.make(token)) }),
    { timeout: 60_000, excludeTestServices: true }
  )((it) => {
    it.effect("SERVING for the port and its service, SERVICE_UNKNOWN and a clean end for another, without the token", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        for (const [name, transport] of transports(urls.org)) {
          expect({ name, ...(yield* watched(transport, "", { take: 1 })) }).toEqual({ name, statuses: [Status.SERVING], ended: "taken" })
          expect({ name, ...(yield* watched(transport, org, { take: 1 })) }).toEqual({ name, statuses: [Status.SERVING], ended: "taken" })
          expect({ name, ...(yield* watched(transport, "nope.Service")) }).toEqual({ name, statuses: [Status.SERVICE_UNKNOWN], ended: "ok" })
        }
      }))

    it.effect("a Watch with a deadline gets the state, then DEADLINE_EXCEEDED when it passes", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        for (const [name, transport] of transports(urls.license)) {
          expect({ name, ...(yield* watched(transport, "", { timeoutMs: 300 })) }).toEqual({
            name,
            statuses: [Status.SERVING],
            ended: Code.DeadlineExceeded
          })
        }
      }))

    it.effect("a gzip-compressed request is read as connect-node reads it", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const compressed = { sendCompression: compressionGzip, compressMinBytes: 0 }
        for (
          const transport of [
            createGrpcTransport({ baseUrl: urls.org, ...compressed }),
            createConnectTransport({ baseUrl: urls.org, httpVersion: "2", ...compressed })
          ]
        ) {
          expect(yield* watched(transport, org, { take: 1 })).toEqual({ statuses: [Status.SERVING], ended: "taken" })
        }
      }))

    it.effect("a binary Watch request over PROTOBUF_MAX_FIELDS (1,000) is refused RESOURCE_EXHAUSTED before it is decoded", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        // 2,000 unknown varint fields: what connect-node's routes refuse by the same bound (correction 8).
        const request = create(HealthCheckRequestSchema, { service: "" })
        request.$unknown = Array.from({ length: 2_000 }, () => ({ no: 99, wireType: 0, data: new Uint8Array([1]) }))
        for (const transport of [createGrpcTransport({ baseUrl: urls.org }), createConnectTransport({ baseUrl: urls.org, httpVersion: "2" })]) {
          const ended = yield* Effect.promise(async () => {
            try {
              for await (const _ of createClient(Health, transport).watch(request)) return "answered"
              return "ended"
            } catch (error) {
              return ConnectError.from(error).rawMessage
            }
          })
          expect(ended).toMatch(/holds more than 1000 fields/)
        }
      }))

    it.effect("@grpc/grpc-js: a server-streaming Watch gets SERVING and stays open", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const client = new grpc.Client(new URL(urls.profile).host, grpc.credentials.createInsecure())
        const first = yield* Effect.promise(() =>
          new Promise<Status>((resolve, reject) => {
            const call = client.makeServerStreamRequest(
              `/${Health.typeName}/Watch`,
              (request: object) => Buffer.from(toBinary(HealthCheckRequestSchema, create(HealthCheckRequestSchema, request))),
              (bytes: Buffer) => fromBinary(HealthCheckResponseSchema, bytes),
              { service: "" }
            )
            call.on("data", (reply: { status: Status }) => {
              resolve(reply.status)
              call.cancel()
            })
            call.on("error", (error: grpc.ServiceError) => error.code !== grpc.status.CANCELLED && reject(error))
          })
        )
        client.close()
        expect(first).toBe(Status.SERVING)
      }))

  })
})

describe(`gRPC health Watch streams are capped per process (MAX_HEALTH_WATCHES = ${cap})`, () => {
  layer(
    inProcessServers({ apiToken: Option.some(Redacted.make(token)), maxHealthWatches: cap }),
    { timeout: 60_000, excludeTestServices: true }
  )((it) => {
    it.effect(`MAX_HEALTH_WATCHES (${cap}) for the process, all ports together: one more is refused RESOURCE_EXHAUSTED; a closed one frees its place`, () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const open = [
          openWatch(createGrpcTransport({ baseUrl: urls.org })),
          openWatch(createConnectTransport({ baseUrl: urls.license, httpVersion: "2" })),
          openWatch(createGrpcWebTransport({ baseUrl: urls.workflow, httpVersion: "1.1" }))
        ]
        expect(yield* Effect.promise(() => Promise.all(open.map((watch) => watch.first)))).toEqual([Status.SERVING, Status.SERVING, Status.SERVING])
        for (const [name, transport] of transports(urls.profile)) {
          const refused = yield* watched(transport, "", { take: 1 })
          expect({ name, ...refused }).toEqual({ name, statuses: [], ended: Code.ResourceExhausted })
        }
        open[0]!.close()
        let admitted: Status | Code | "ended" = Code.ResourceExhausted
        for (let attempt = 0; attempt < 50 && admitted === Code.ResourceExhausted; attempt++) {
          yield* Effect.sleep(20)
          const again = openWatch(createGrpcTransport({ baseUrl: urls.profile }))
          admitted = yield* Effect.promise(() => again.first)
          again.close()
        }
        expect(admitted).toBe(Status.SERVING)
        for (const watch of open) watch.close()
      }))
  })
})
