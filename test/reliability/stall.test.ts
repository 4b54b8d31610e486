import { create, toBinary } from "@bufbuild/protobuf"
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire"
import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { on } from "node:events"
import { readFileSync } from "node:fs"
import { loadavg } from "node:os"
import { Worker } from "node:worker_threads"
import { gzipSync } from "node:zlib"
import { CreateOrgRequestSchema } from "../../src/gen/org/v1beta1/org_pb.js"
import { defaultSettings } from "../../src/main/Settings.js"
import { freePort, startProcess, stopProcess } from "../e2e/support/Processes.js"
import { recordFigures } from "../support/Figures.js"
import { freshServerDatabase, serverUrl, testDatabaseKind } from "../support/TestDatabase.js"
import {
  type Answer,
  connectPost,
  envelope,
  graphqlCall,
  grpcRaw,
  httpCall,
  restCall,
  rpcPost,
  rpcRequest
} from "./support/wire.js"

/**
 * Issue 24, item 5: one request must not stall every port of the process. Each shape of the
 * issue — binary protobuf with half a million fields, JSON with 60,000 keys or nested 520,000
 * deep, a GraphQL operation of 33 lists of 100 rows — is sent to one port of the all-in-one
 * process while `/healthz` is asked, again and again, on another port of the same process; the
 * slowest of those answers is how long that port was held up.
 *
 * What is asserted is structural: the refusal (its code, the bound its message names) and that
 * nothing was done (no record created, no operation run). The stalls are recorded
 * (reports/stall-*.json, docs/reliability.md), never asserted: the machine is shared, and a
 * time limit in a test would fail for the neighbours' load.
 */

const ports = ["org", "profile", "license", "workflow"] as const
type Urls = Record<(typeof ports)[number], string> & { readonly pid: number }

/** The all-in-one process, as `npm start` runs it: one event loop behind all four ports. */
class AllInOne extends Context.Tag("stall/AllInOne")<AllInOne, Urls>() {}

const allInOne = Layer.scoped(
  AllInOne,
  Effect.gen(function*() {
    const numbers = yield* Effect.promise(() => Promise.all(ports.map(() => freePort())))
    const database = serverUrl === undefined
      ? { DATA_DIR: "memory://" }
      : { DATABASE_URL: (yield* freshServerDatabase(serverUrl)).url }
    const running = yield* Effect.acquireRelease(
      Effect.promise(() =>
        startProcess("all", {
          ...database,
          ACCESS_LOG: "off",
          ...Object.fromEntries(ports.map((port, i) => [`${port.toUpperCase()}_PORT`, String(numbers[i])]))
        }, 4)
      ),
      (running) => Effect.promise(() => stopProcess(running))
    )
    return {
      ...Object.fromEntries(ports.map((port, i) => [port, `http://127.0.0.1:${numbers[i]}`])),
      pid: running.child.pid!
    } as Urls
  })
)

// ---------------------------------------------------------------------------------------------
// The stall of another port

/**
 * Asks `/healthz` of `url` over and over, two requests always in flight (so a stall that begins
 * between two answers on one connection is caught on the other), and reports the slowest answer
 * when told to stop. It runs on a thread of its own: the test's own work (building and sending a
 * megabyte) must not be counted as the server's.
 */
const prober = `
const { parentPort, workerData } = require("node:worker_threads")
const http = require("node:http")
const agent = new http.Agent({ keepAlive: true, maxSockets: 2 })
const probe = () => new Promise((resolve, reject) => {
  const start = performance.now()
  http.get(workerData.url + "/healthz", { agent }, (response) => {
    response.resume()
    response.once("end", () => resolve(performance.now() - start))
  }).once("error", reject)
})
let running = true
let slowest = 0
const loop = async () => { while (running) slowest = Math.max(slowest, await probe()) }
let loops = []
parentPort.on("message", async () => {
  running = false
  await Promise.all(loops)
  agent.destroy()
  parentPort.postMessage(slowest)
})
Promise.all([probe(), probe()]).then(() => {
  loops = [loop(), loop()]
  parentPort.postMessage("ready")
})
`

/**
 * The CPU time, in ms, the server's main thread — its event loop — has run so far (Linux
 * schedstat, in ns). On a machine shared with other work a stall is stretched by the wait for a
 * core; this figure is not, so it is recorded beside the stall: the event loop's own work on one
 * request (sent with no probe running; an upper bound on the stall it can cause on a quiet machine).
 */
const mainThreadCpuMs = (pid: number) => Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e6

const rounded = (ms: number) => Math.round(ms * 10) / 10

const settle = () => new Promise((resolve) => setTimeout(resolve, 20))

/** The slowest `/healthz` answer on the license port while `attack` runs, and the attack's answer. */
const stallDuring = async <A>(server: Urls, attack: () => Promise<A>) => {
  const worker = new Worker(prober, { eval: true, workerData: { url: server.license } })
  try {
    const reports = on(worker, "message")
    await reports.next() // ready
    const answer = await attack()
    // Work done after the answer is written would stall the port too: a moment more of probing.
    await settle()
    worker.postMessage("stop")
    const slowest = (await reports.next()).value[0] as number
    return { answer, stallMs: rounded(slowest) }
  } finally {
    await worker.terminate()
  }
}

/** The server's main-thread CPU time for `attack` alone, no probe running. */
const cpuOf = async <A>(server: Urls, attack: () => Promise<A>) => {
  const before = mainThreadCpuMs(server.pid)
  const answer = await attack()
  await settle()
  return { answer, cpuMs: rounded(mainThreadCpuMs(server.pid) - before) }
}

const runs = 5

/**
 * `runs` rounds of two attacks: one while the other port is probed (its stall), one alone (the
 * server's CPU time for it). `prepare()` builds a request before either starts and returns what
 * sends it. Nothing is asserted here: the figures are recorded before the answers are checked, so
 * a run of unfixed code still reports them.
 */
const measured = async <A>(server: Urls, prepare: () => () => Promise<A>) => {
  const answers: Array<A> = []
  const stalls: Array<number> = []
  const cpu: Array<number> = []
  for (let i = 0; i < runs; i++) {
    const probed = await stallDuring(server, prepare())
    const alone = await cpuOf(server, prepare())
    answers.push(probed.answer, alone.answer)
    stalls.push(probed.stallMs)
    cpu.push(alone.cpuMs)
  }
  return { answers, stalls, cpu }
}

/** `/healthz` asked while nothing else runs: what the probe itself costs on this machine now. */
const idle = (server: Urls) => measured(server, () => () => new Promise((resolve) => setTimeout(resolve, 100)))

/** A shape's figures: the stall of the other port, and the server's main-thread CPU time, per run. */
const figures = ({ cpu, stalls }: { readonly stalls: ReadonlyArray<number>; readonly cpu: ReadonlyArray<number> }) => ({
  stallMs: stalls,
  stallMsMin: Math.min(...stalls),
  stallMsMax: Math.max(...stalls),
  serverCpuMs: cpu,
  serverCpuMsMax: Math.max(...cpu),
  // How busy the machine was (other work shares its cores): the 1-minute load average.
  loadAverage: loadavg()[0]
})

// ---------------------------------------------------------------------------------------------
// What must not have been done

/** Fresh org ids, each kept to check afterwards that no org of it exists. */
const idCollector = () => {
  const ids: Array<string> = []
  return {
    ids,
    fresh: () => {
      const id = randomUUID()
      ids.push(id)
      return id
    }
  }
}

const orgExists = async (urls: Urls, id: string) => (await restCall(`${urls.org}/orgs/${id}`, "GET")).status !== 404

const refused = (answer: Answer, code: string | number, status: number | undefined, message: RegExp) => {
  expect({ code: answer.code, status: answer.status }).toEqual({ code, status })
  expect(answer.message).toMatch(message)
}

const { graphqlMaxCalls, jsonMaxDepth, jsonMaxValues, protobufMaxFields } = defaultSettings
const tooManyFields = new RegExp(
  `^the request message holds more than ${protobufMaxFields} fields \\(its nested messages' included\\); at most ${protobufMaxFields} are allowed$`
)
const tooManyValues =
  new RegExp(`^the JSON holds more than ${jsonMaxValues} values \\(object members and array elements\\); at most ${jsonMaxValues} are allowed$`)
const tooDeep = new RegExp(`^the JSON nests objects and arrays more than ${jsonMaxDepth} deep; at most ${jsonMaxDepth} levels are allowed$`)

// ---------------------------------------------------------------------------------------------
// The shapes

/** A CreateOrg message of `id`, followed by `count` two-byte fields of `fieldNumber` (a varint 1, or an empty string). */
const protobufWithFields = (id: string, fieldNumber: number, count: number, wireType: WireType) => {
  const writer = new BinaryWriter()
  for (let i = 0; i < count; i++) {
    writer.tag(fieldNumber, wireType)
    if (wireType === WireType.Varint) writer.uint32(1)
    else writer.string("")
  }
  return Buffer.concat([toBinary(CreateOrgRequestSchema, create(CreateOrgRequestSchema, { id, name: "Acme" })), writer.finish()])
}

const keys = 60_000
const depth = 520_000

/** A CreateOrg body in JSON with `keys` extra keys: about 830 KB. */
const manyKeys = (id: string) => {
  const extra = Array.from({ length: keys }, (_, i) => `"k${i}":0`).join(",")
  return `{"id":"${id}","name":"Acme",${extra}}`
}

/** An array nested `depth` deep: 1,040,000 bytes, within MAX_BODY_BYTES (1 MiB) with what surrounds it. */
const deepArray = `${"[".repeat(depth)}${"]".repeat(depth)}`

const rowsListed = 100
const lists = 33
/** GRAPHQL_MAX_CALLS: lists of 100 rows in one operation, the most it answers. */
const withinBudget = graphqlMaxCalls

/** `count` lists of `rowsListed` orgs, 3 fields each (99 for 33: within GRAPHQL_MAX_FIELDS, 100). */
const listsQuery = (count: number) =>
  `{ ${Array.from({ length: count }, (_, i) => `l${i}: orgs(pageSize: ${rowsListed}) { orgs { id } }`).join(" ")} }`

describe(`one request does not stall the other ports (all-in-one process, ${testDatabaseKind})`, () => {
  layer(allInOne, { timeout: 300_000 })((it) => {
    it.effect("binary protobuf with 500,000 unknown fields (1 MB): resource_exhausted naming PROTOBUF_MAX_FIELDS' bound, in Connect and gRPC, compressed or not; nothing created", () =>
      Effect.gen(function*() {
        const urls = yield* AllInOne
        // First, /healthz with nothing else running: what the probe itself takes on this machine now.
        const quiet = yield* Effect.promise(() => idle(urls))
        recordFigures("stall-idle", { database: testDatabaseKind, ...figures(quiet) })
        const { fresh, ids } = idCollector()
        const unknown = () => protobufWithFields(fresh(), 15, 500_000, WireType.Varint)
        const connect = yield* Effect.promise(() =>
          measured(urls, () => {
            const body = unknown()
            return () => connectPost(urls.org, "org.v1beta1.OrgService/CreateOrg", body)
          })
        )
        const grpc = yield* Effect.promise(() =>
          measured(urls, () => {
            const body = envelope(unknown())
            return () => grpcRaw(urls.org, "org.v1beta1.OrgService/CreateOrg", body)
          })
        )
        // Compressed, the megabyte is 2 KB on the wire: the bound holds the message, not the body.
        const gzipped = yield* Effect.promise(() =>
          measured(urls, () => {
            const body = gzipSync(unknown())
            return () =>
              httpCall(`${urls.org}/org.v1beta1.OrgService/CreateOrg`, {
                headers: { "content-type": "application/proto", "content-encoding": "gzip" },
                body
              }).then((reply): Answer => ({ status: reply.status, code: reply.json?.code, message: reply.json?.message ?? "" }))
          })
        )
        // Known fields repeated: protobuf-es decodes each one (a string), the costlier case.
        const repeated = yield* Effect.promise(() =>
          measured(urls, () => {
            const body = protobufWithFields(fresh(), 2, 500_000, WireType.LengthDelimited)
            return () => connectPost(urls.org, "org.v1beta1.OrgService/CreateOrg", body)
          })
        )
        recordFigures("stall-protobuf-fields", {
          database: testDatabaseKind,
          connect: figures(connect),
          grpc: figures(grpc),
          connectGzip: figures(gzipped),
          connectRepeatedKnownField: figures(repeated)
        })
        for (const answer of [...connect.answers, ...gzipped.answers, ...repeated.answers]) {
          refused(answer, "resource_exhausted", 429, tooManyFields)
        }
        for (const answer of grpc.answers) refused(answer, 8, 200, tooManyFields)
        for (const id of ids) expect(yield* Effect.promise(() => orgExists(urls, id)), id).toBe(false)
      }))

    it.effect("Connect JSON with 60,000 keys: resource_exhausted naming JSON_MAX_VALUES' bound; nothing created", () =>
      Effect.gen(function*() {
        const urls = yield* AllInOne
        const { fresh, ids } = idCollector()
        const { answers, cpu, stalls } = yield* Effect.promise(() =>
          measured(urls, () => {
            const body = manyKeys(fresh())
            return () => connectPost(urls.org, "org.v1beta1.OrgService/CreateOrg", body)
          })
        )
        recordFigures("stall-connect-json-keys", { database: testDatabaseKind, ...figures({ stalls, cpu }) })
        for (const answer of answers) refused(answer, "resource_exhausted", 429, tooManyValues)
        for (const id of ids) expect(yield* Effect.promise(() => orgExists(urls, id)), id).toBe(false)
      }))

    it.effect("REST JSON with 60,000 keys: 413 {code: 8} naming JSON_MAX_VALUES' bound; nothing created", () =>
      Effect.gen(function*() {
        const urls = yield* AllInOne
        const { fresh, ids } = idCollector()
        const { answers, cpu, stalls } = yield* Effect.promise(() =>
          measured(urls, () => {
            const id = fresh()
            const body = manyKeys(id)
            return () => restCall(`${urls.org}/orgs/${id}`, "PUT", body)
          })
        )
        recordFigures("stall-rest-json-keys", { database: testDatabaseKind, ...figures({ stalls, cpu }) })
        for (const answer of answers) refused(answer, 8, 413, tooManyValues)
        for (const id of ids) expect(yield* Effect.promise(() => orgExists(urls, id)), id).toBe(false)
      }))

    it.effect("JSON nested 520,000 deep, in Connect, REST, /rpc and GraphQL: refused naming JSON_MAX_DEPTH's bound; nothing created", () =>
      Effect.gen(function*() {
        const urls = yield* AllInOne
        const { fresh, ids } = idCollector()
        // Flattened to bytes here, not while the port is probed.
        const deepOrg = (id: string) => Buffer.from(`{"id":"${id}","name":"Acme","x":${deepArray}}`).toString()
        const connect = yield* Effect.promise(() =>
          measured(urls, () => {
            const body = deepOrg(fresh())
            return () => connectPost(urls.org, "org.v1beta1.OrgService/CreateOrg", body)
          })
        )
        const rest = yield* Effect.promise(() =>
          measured(urls, () => {
            const id = fresh()
            const body = deepOrg(id)
            return () => restCall(`${urls.org}/orgs/${id}`, "PUT", body)
          })
        )
        const rpc = yield* Effect.promise(() =>
          measured(urls, () => {
            const body = Buffer.from(rpcRequest("CreateOrg", { id: fresh(), name: "Acme", x: 0 }).replace(`"x":0`, `"x":${deepArray}`))
            return () => rpcPost(urls.org, body)
          })
        )
        const mutation = "mutation($input: CreateOrgInput!) { createOrg(input: $input) { org { id } } }"
        const graphql = yield* Effect.promise(() =>
          measured(urls, () => {
            const body = Buffer.from(`{"query":${JSON.stringify(mutation)},"variables":{"input":${deepOrg(fresh())}}}`).toString()
            return () => graphqlCall(urls.org, body)
          })
        )
        recordFigures("stall-json-depth", {
          database: testDatabaseKind,
          connect: figures(connect),
          rest: figures(rest),
          rpc: figures(rpc),
          graphql: figures(graphql)
        })
        for (const answer of connect.answers) refused(answer, "resource_exhausted", 429, tooDeep)
        for (const answer of [...rest.answers, ...rpc.answers]) refused(answer, 8, 413, tooDeep)
        for (const answer of graphql.answers) {
          refused(answer, "RESOURCE_EXHAUSTED", 413, tooDeep)
          expect((answer.body as { data?: unknown }).data).toBeUndefined()
        }
        for (const id of ids) expect(yield* Effect.promise(() => orgExists(urls, id)), id).toBe(false)
      }))

    it.effect("GraphQL, 33 lists of 100 rows (within depth and fields): RESOURCE_EXHAUSTED naming GRAPHQL_MAX_CALLS' bound, before any call; as many as it allows are answered", () =>
      Effect.gen(function*() {
        const urls = yield* AllInOne
        // Rows to list: 100 orgs, created 10 at a time.
        for (let batch = 0; batch < rowsListed / 10; batch++) {
          yield* Effect.promise(() =>
            Promise.all(
              Array.from({ length: 10 }, () => restCall(`${urls.org}/orgs/${randomUUID()}`, "PUT", JSON.stringify({ name: "Listed" })))
            )
          )
        }
        const over = yield* Effect.promise(() =>
          measured(urls, () => {
            const body = JSON.stringify({ query: listsQuery(lists) })
            return () => graphqlCall(urls.org, body)
          })
        )
        // The same budget holds mutations, so a refused one creates nothing: 33 creates, none run.
        const created: Array<string> = []
        const creates = yield* Effect.promise(() =>
          measured(urls, () => {
            const fields = Array.from({ length: lists }, (_, i) => {
              const id = randomUUID()
              created.push(id)
              return `c${i}: createOrg(input: {id: "${id}", name: "Budget"}) { org { id } }`
            })
            const body = JSON.stringify({ query: `mutation { ${fields.join(" ")} }` })
            return () => graphqlCall(urls.org, body)
          })
        )
        const within = yield* Effect.promise(() =>
          measured(urls, () => {
            const body = JSON.stringify({ query: listsQuery(withinBudget) })
            return () => graphqlCall(urls.org, body)
          })
        )
        recordFigures("stall-graphql-lists", {
          database: testDatabaseKind,
          [`${lists}Lists`]: figures(over),
          [`${lists}Creates`]: figures(creates),
          [`${withinBudget}ListsAnswered`]: figures(within)
        })
        const overBudget = new RegExp(
          `^the operation makes ${lists} service calls \\(fields at its root, aliases included\\); at most ${withinBudget} are allowed$`
        )
        for (const answer of [...over.answers, ...creates.answers]) {
          refused(answer, "RESOURCE_EXHAUSTED", 400, overBudget)
          expect((answer.body as { data?: unknown }).data).toBeUndefined()
        }
        for (const id of created) expect(yield* Effect.promise(() => orgExists(urls, id)), id).toBe(false)
        for (const answer of within.answers) {
          expect(answer.code).toBe("ok")
          const data = (answer.body as { data: Record<string, { orgs: Array<unknown> }> }).data
          expect(Object.values(data).map((list) => list.orgs.length)).toEqual(Array(withinBudget).fill(rowsListed))
        }
      }))
  })
})
