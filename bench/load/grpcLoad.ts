/**
 * gRPC (h2c) load for the creates, where h2load cannot serve: h2load repeats one fixed body, and a
 * create needs a fresh id per request or every request after the first is a replay. Bare
 * `node:http2` and pre-built schemas keep the generator's own cost small next to the server's.
 *
 *   node dist/bench/bench/load/grpcLoad.js '{"url":"http://127.0.0.1:7202",
 *     "path":"/org.v1beta1.OrgService/CreateOrg","operation":"CreateOrg",
 *     "concurrency":64,"connections":2,"seconds":5,"warmupSeconds":1}'
 *
 * Prints one JSON line: requests and errors among requests started after the warm-up, the window
 * (warm-up end to the last of those finishing), rps, and p50/p99 (p90, p99.9, max too) latency of the
 * successful ones.
 */
import { create, toBinary } from "@bufbuild/protobuf"
import { timestampFromDate } from "@bufbuild/protobuf/wkt"
import { randomUUID } from "node:crypto"
import * as http2 from "node:http2"
import { CreateLicenseRequestSchema } from "../../src/gen/license/v1beta1/license_pb.js"
import { CreateOrgRequestSchema } from "../../src/gen/org/v1beta1/org_pb.js"
import { CreateProfileRequestSchema } from "../../src/gen/profile/v1beta1/profile_pb.js"

interface Options {
  readonly url: string
  readonly path: string
  readonly operation: "CreateOrg" | "CreateProfile" | "CreateLicense"
  readonly concurrency: number
  readonly connections: number
  readonly seconds: number
  readonly warmupSeconds: number
}

const options = JSON.parse(process.argv[2] ?? "{}") as Options

const frame = (message: Uint8Array) => {
  const framed = Buffer.allocUnsafe(5 + message.length)
  framed[0] = 0 // not compressed
  framed.writeUInt32BE(message.length, 1)
  framed.set(message, 5)
  return framed
}

const yearMs = 365 * 24 * 3600 * 1000
const messages: Record<Options["operation"], () => Uint8Array> = {
  CreateOrg: () => toBinary(CreateOrgRequestSchema, create(CreateOrgRequestSchema, { id: randomUUID(), name: "bench org" })),
  CreateProfile: () =>
    toBinary(
      CreateProfileRequestSchema,
      create(CreateProfileRequestSchema, { id: randomUUID(), fullName: "Bench User", orgId: randomUUID() })
    ),
  CreateLicense: () => {
    const start = new Date()
    return toBinary(
      CreateLicenseRequestSchema,
      create(CreateLicenseRequestSchema, {
        id: randomUUID(),
        userId: randomUUID(),
        start: timestampFromDate(start),
        end: timestampFromDate(new Date(start.getTime() + yearMs))
      })
    )
  }
}
const message = messages[options.operation]
if (message === undefined) {
  console.error(`unknown operation ${String(options.operation)}`)
  process.exit(2)
}

const headers = {
  ":method": "POST",
  ":path": options.path,
  "content-type": "application/grpc",
  te: "trailers"
}

const connect = () =>
  new Promise<http2.ClientHttp2Session>((resolve, reject) => {
    const session = http2.connect(options.url)
    session.once("connect", () => {
      session.off("error", reject)
      // A later session error surfaces on its streams; without a listener it would end the process.
      session.on("error", () => undefined)
      resolve(session)
    })
    session.once("error", reject)
  })

/** Resolves true for :status 200 with grpc-status 0 (in trailers, or headers if trailers-only). */
const call = (session: http2.ClientHttp2Session, body: Buffer) =>
  new Promise<boolean>((resolve) => {
    let status: number | undefined
    let grpcStatus: unknown
    const stream = session.request(headers)
    stream.on("response", (h) => {
      status = h[":status"]
      grpcStatus = h["grpc-status"]
    })
    stream.on("trailers", (t) => {
      grpcStatus = t["grpc-status"]
    })
    stream.on("data", () => undefined)
    stream.on("error", () => undefined)
    stream.on("close", () => resolve(status === 200 && grpcStatus === "0"))
    stream.end(body)
  })

const sessions = await Promise.all(Array.from({ length: options.connections }, connect))

const t0 = process.hrtime.bigint()
const warmupEnd = t0 + BigInt(Math.round(options.warmupSeconds * 1e9))
const stopAt = warmupEnd + BigInt(Math.round(options.seconds * 1e9))
const latenciesMs: Array<number> = []
let errors = 0
let lastEnd = warmupEnd

const worker = async (slot: number) => {
  const index = slot % sessions.length
  while (process.hrtime.bigint() < stopAt) {
    const body = frame(message())
    const start = process.hrtime.bigint()
    let ok = false
    try {
      // A session lost mid-run (GOAWAY, reset) is replaced; its failed requests count as errors.
      const session = sessions[index]!
      if (session.closed || session.destroyed) sessions[index] = await connect()
      ok = await call(sessions[index]!, body)
    } catch {
      ok = false
    }
    const end = process.hrtime.bigint()
    if (start < warmupEnd) continue
    if (end > lastEnd) lastEnd = end
    if (ok) latenciesMs.push(Number(end - start) / 1e6)
    else errors++
  }
}

await Promise.all(Array.from({ length: options.concurrency }, (_, slot) => worker(slot)))

latenciesMs.sort((a, b) => a - b)
const percentile = (p: number) =>
  latenciesMs.length === 0 ? 0 : latenciesMs[Math.min(latenciesMs.length - 1, Math.ceil(p * latenciesMs.length) - 1)]!
const round = (n: number) => Math.round(n * 1000) / 1000
const seconds = Number(lastEnd - warmupEnd) / 1e9
const requests = latenciesMs.length

for (const session of sessions) session.close()
process.stdout.write(
  JSON.stringify({
    requests,
    errors,
    seconds: round(seconds),
    rps: round(seconds > 0 ? requests / seconds : 0),
    p50Ms: round(percentile(0.5)),
    p99Ms: round(percentile(0.99)),
    p90Ms: round(percentile(0.9)),
    p999Ms: round(percentile(0.999)),
    maxMs: round(latenciesMs.at(-1) ?? 0)
  }) + "\n",
  () => process.exit(0)
)
