/**
 * Issue 61's token-less introspection load, on the built all-in-one process (embedded database, in
 * memory) with API_TOKEN set and SCHEMA_ACCESS open (the default): figures for docs/reliability.md,
 * not assertions (test/transports/introspection-bounds.test.ts asserts what does not depend on speed).
 *
 * - before: an authenticated GraphQL caller (`orgs(pageSize: 1)`, one call at a time) and another
 *   port's `/healthz` (profile), alone, for `seconds`;
 * - during: the same, while 32 callers without the token (one keep-alive connection each, from
 *   127.0.0.1, none waiting between calls or for Retry-After) send, for `attackSeconds`, either the
 *   60-alias query (`s0: __schema { types { name fields { name } } }` x 60) or a valid introspection
 *   document made new on every call (a comment of its own, so no cache can help), which is the most a
 *   caller without the token can still make the server walk; and, as the floor, REST calls that the
 *   pipeline refuses as unauthenticated from their headers (what any caller without the token can
 *   send, introspection or not);
 * - meanwhile, GraphiQL's standard introspection query from another address (127.0.0.2) without the
 *   token, once a second, and once more after each storm from 127.0.0.1, with and without the token.
 *
 * Reported: each caller's p50 and p99 (ms), the worst /healthz, the attackers' answers by status,
 * the server's CPU seconds during the storm.
 *
 * Usage (after npm run build and tsc -p tsconfig.bench.json, from the repository's root):
 *   node dist/bench/bench/tools/introspectionLoad.js [attack seconds, default 15] [baseline seconds, default 5]
 * Only 127.0.0.1 and 127.0.0.2; every storm stops after its seconds.
 */
import * as http from "node:http"
import { cpuMicros, freePort, start, stop } from "../Processes.js"
import { standardIntrospection } from "../StandardIntrospection.js"

const attackSeconds = Number(process.argv[2] ?? 15)
const baselineSeconds = Number(process.argv[3] ?? 5)
const token = "bench-token-introspection"
const callers = 32

const aliased = `{ ${Array.from({ length: 60 }, (_, i) => `s${i}: __schema { types { name fields { name } } }`).join(" ")} }`
let fresh = 0
const freshIntrospection = () => `# ${fresh++}\n{ __schema { types { name fields { name args { name } } } } }`

interface Answer {
  readonly status: number
  readonly body: string
  readonly millis: number
}

/** One POST /graphql on `agent`; status 0 when it failed or took more than 15 s. */
const post = (agent: http.Agent, url: string, query: string, headers: http.OutgoingHttpHeaders = {}, localAddress?: string) =>
  new Promise<Answer>((resolve) => {
    const began = performance.now()
    const done = (status: number, body = "") => resolve({ status, body, millis: performance.now() - began })
    const request = http.request(`${url}/graphql`, {
      method: "POST",
      agent,
      ...(localAddress === undefined ? {} : { localAddress }),
      headers: { "content-type": "application/json", ...headers },
      timeout: 15_000
    }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () => done(response.statusCode ?? 0, Buffer.concat(chunks).toString("utf8")))
      response.on("error", () => done(0))
    })
    request.on("error", () => done(0))
    request.on("timeout", () => request.destroy())
    request.end(JSON.stringify({ query }))
  })

const getHealthz = (agent: http.Agent, url: string) =>
  new Promise<number>((resolve) => {
    const began = performance.now()
    const request = http.get(`${url}/healthz`, { agent, timeout: 15_000 }, (response) => {
      response.resume()
      response.on("end", () => resolve(performance.now() - began))
    })
    request.on("error", () => resolve(15_000))
    request.on("timeout", () => request.destroy())
  })

const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!
}
const round = (value: number) => Math.round(value * 10) / 10

/** Runs `once` back to back until `until`; the results. */
const loop = async <A>(until: () => boolean, once: () => Promise<A>): Promise<Array<A>> => {
  const results: Array<A> = []
  while (!until()) results.push(await once())
  return results
}

const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis))

/** The authenticated caller and the other port's /healthz, for `seconds`. */
const observe = async (org: string, profile: string, seconds: number) => {
  const ends = performance.now() + seconds * 1000
  const over = () => performance.now() >= ends
  const callerAgent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const healthAgent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const [calls, healthz] = await Promise.all([
    loop(over, () => post(callerAgent, org, "{ orgs(pageSize: 1) { nextPageToken } }", { authorization: `Bearer ${token}` })),
    loop(over, async () => {
      const millis = await getHealthz(healthAgent, profile)
      await sleep(100)
      return millis
    })
  ])
  callerAgent.destroy()
  healthAgent.destroy()
  const millis = calls.map((call) => call.millis)
  return {
    caller: { calls: calls.length, failed: calls.filter((call) => call.status !== 200).length, p50: round(percentile(millis, 0.5)), p99: round(percentile(millis, 0.99)) },
    healthz: { probes: healthz.length, p50: round(percentile(healthz, 0.5)), worst: round(Math.max(...healthz)) }
  }
}

/** Whether GraphiQL's standard query is answered whole: status, and the types it lists. */
const graphiql = async (org: string, headers: http.OutgoingHttpHeaders, localAddress?: string) => {
  const agent = new http.Agent({ keepAlive: false })
  const answer = await post(agent, org, standardIntrospection, headers, localAddress)
  agent.destroy()
  let types: number | undefined
  try {
    types = JSON.parse(answer.body).data?.__schema?.types?.length
  } catch {
    types = undefined
  }
  return { status: answer.status, types, millis: round(answer.millis) }
}

/** What an answer was: its status and its GraphQL error code, or REST's `code`, or `data` when it had none. */
const kindOf = (answer: Answer) => {
  try {
    const body = JSON.parse(answer.body)
    return `${answer.status} ${body.errors?.[0]?.extensions?.code ?? (typeof body.code === "number" ? `code ${body.code}` : "data")}`
  } catch {
    return `${answer.status}`
  }
}

/** A call the pipeline refuses from its headers, as any caller without the token can make: the floor. */
const restRefusal = (agent: http.Agent, url: string) =>
  new Promise<Answer>((resolve) => {
    const began = performance.now()
    const request = http.get(`${url}/orgs?pageSize=1`, { agent, timeout: 15_000 }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8"), millis: performance.now() - began }))
    })
    request.on("error", () => resolve({ status: 0, body: "", millis: performance.now() - began }))
    request.on("timeout", () => request.destroy())
  })

const storm = async (pid: number, org: string, profile: string, send: (agent: http.Agent) => Promise<Answer>) => {
  const ends = performance.now() + attackSeconds * 1000
  const over = () => performance.now() >= ends
  const agent = new http.Agent({ keepAlive: true, maxSockets: callers })
  const statuses = new Map<string, number>()
  const cpuBefore = cpuMicros(pid)
  const attackers = Promise.all(Array.from({ length: callers }, () =>
    loop(over, async () => {
      const kind = kindOf(await send(agent))
      statuses.set(kind, (statuses.get(kind) ?? 0) + 1)
    })
  ))
  // GraphiQL from another address, once a second, while the storm lasts.
  const otherAddress = loop(over, async () => {
    const answer = await graphiql(org, {}, "127.0.0.2")
    await sleep(1_000)
    return answer
  })
  const during = await observe(org, profile, attackSeconds)
  await attackers
  const fromOther = await otherAddress
  const cpuSeconds = round((cpuMicros(pid) - cpuBefore) / 1e6)
  agent.destroy()
  await sleep(2_000)
  return {
    ...during,
    attackers: Object.fromEntries([...statuses].sort(([a], [b]) => a.localeCompare(b))),
    serverCpuSeconds: cpuSeconds,
    graphiqlFrom127_0_0_2: {
      tries: fromOther.length,
      answeredWhole: fromOther.filter((answer) => answer.status === 200 && (answer.types ?? 0) > 0).length,
      statuses: [...new Set(fromOther.map((answer) => answer.status))]
    },
    graphiqlAfter: {
      withoutToken: await graphiql(org, {}),
      withToken: await graphiql(org, { authorization: `Bearer ${token}` })
    }
  }
}

const main = async () => {
  const ports = [await freePort(), await freePort(), await freePort(), await freePort()]
  const server = await start({
    name: "all-in-one",
    script: "dist/main/all.js",
    env: {
      DATA_DIR: "memory://", ACCESS_LOG: "off", LOG_LEVEL: "warning", API_TOKEN: token,
      ORG_PORT: String(ports[0]), PROFILE_PORT: String(ports[1]), LICENSE_PORT: String(ports[2]), WORKFLOW_PORT: String(ports[3])
    },
    readyUrls: ports.map((port) => `http://127.0.0.1:${port}/readyz`)
  })
  const [org, profile] = [`http://127.0.0.1:${ports[0]}`, `http://127.0.0.1:${ports[1]}`] as const
  try {
    const pid = server.child.pid!
    // Warm-up, not reported: the first calls of a process run unoptimised code.
    await observe(org, profile, 2)
    const before = await observe(org, profile, baselineSeconds)
    console.log(JSON.stringify({ phase: "before", ...before }))
    const storms = [
      ["60-alias query", (agent: http.Agent) => post(agent, org, aliased)],
      ["a new valid introspection document each call", (agent: http.Agent) => post(agent, org, freshIntrospection())],
      ["REST GET /orgs (refused as unauthenticated from its headers: the floor)", (agent: http.Agent) => restRefusal(agent, org)]
    ] as const
    for (const [what, send] of storms) {
      console.log(JSON.stringify({ phase: `${what}, ${callers} callers without the token`, ...await storm(pid, org, profile, send) }))
    }
    console.log(JSON.stringify({ phase: "after", ...await observe(org, profile, baselineSeconds) }))
  } finally {
    await stop(server)
  }
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
