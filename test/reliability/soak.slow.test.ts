import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { connectClients } from "../e2e/support/connectClient.js"
import { graphqlStyle } from "../e2e/support/graphqlClient.js"
import { grpcJsClient } from "../e2e/support/grpcJsClient.js"
import { restStyle } from "../e2e/support/restClient.js"
import { rpcStyle } from "../e2e/support/rpcClient.js"
import { stopProcess } from "../e2e/support/Processes.js"
import { persistentDeployment } from "../support/Deployment.js"
import { liveMemoryMiB, recordFigures, rssMiB } from "../support/Figures.js"
import { mixedOperations, percentile, runLoad, unreadable } from "../support/Load.js"
import { notStored } from "../support/StoredAudit.js"
import { testDatabaseKind } from "../support/TestDatabase.js"

const seconds = Number(process.env["SOAK_SECONDS"] ?? 60)
// V8 grows its heap into a steady state over the first minute of load; memory is judged after it.
const warmUpSeconds = Number(process.env["SOAK_WARMUP_SECONDS"] ?? 30)
/** How many acknowledged creates are also read back through a service (all are checked in SQL). */
const readBackSample = 2_000
const mean = (values: ReadonlyArray<number>) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length)

describe(`soak (${testDatabaseKind})`, () => {
  it.live(`64 concurrent clients, mixed operations in every style, ${seconds} s after ${warmUpSeconds} s warm-up: nothing fails, nothing is lost, memory stays flat`, () =>
    Effect.gen(function*() {
      const deployment = yield* persistentDeployment
      const running = yield* Effect.acquireRelease(Effect.promise(deployment.start), (p) => Effect.promise(() => stopProcess(p)))
      const clients = [
        ...connectClients.filter((_, i) => i !== 4), // all but the GET-reads variant, which repeats JSON
        restStyle,
        graphqlStyle,
        rpcStyle
      ].map((style) => style.make(deployment.urls))
      clients.push(grpcJsClient(deployment.urls))

      const rss: Array<number> = []
      const started = Date.now()
      const measuring = () => Date.now() - started >= warmUpSeconds * 1_000
      const live: Array<number> = []
      const sampler = setInterval(() => {
        if (!measuring()) return
        rss.push(rssMiB(running.child.pid!))
        liveMemoryMiB(`${deployment.urls.org}/metrics`).then((mib) => live.push(mib), () => {})
      }, 1_000)
      const result = yield* Effect.promise(() =>
        runLoad({
          clients,
          concurrency: 64,
          mix: mixedOperations,
          running: () => Date.now() - started < (warmUpSeconds + seconds) * 1_000
        })
      ).pipe(Effect.ensuring(Effect.sync(() => clearInterval(sampler))))
      const elapsed = (Date.now() - started) / 1_000

      // Nothing lost: a sample read back through a service while it runs, then every acknowledged
      // create looked up in the database itself once the process has stopped.
      const sample = result.acknowledged.filter((_, i) => i % Math.max(1, Math.floor(result.acknowledged.length / readBackSample)) === 0)
      const unreadBack = yield* Effect.promise(() => unreadable(clients[0]!, sample, { concurrency: 32 }))
      clients.forEach((client) => client.close?.())
      expect(yield* Effect.promise(() => stopProcess(running))).toBe(0)
      const databaseUrl = yield* deployment.stored
      const missing = [...unreadBack.map(({ expected, problem }) => `${expected.kind} ${expected.id}: ${problem}`), ...yield* Effect.promise(() => notStored(databaseUrl, result.acknowledged))]
      const third = Math.floor(rss.length / 3)
      const firstThird = mean(rss.slice(0, third))
      const lastThird = mean(rss.slice(rss.length - third))
      const liveThird = Math.floor(live.length / 3)
      const liveFirstThird = Math.min(...live.slice(0, liveThird))
      const liveLastThird = Math.min(...live.slice(live.length - liveThird))
      recordFigures(`soak-${deployment.kind}`, {
        seconds: Math.round(elapsed),
        warmUpSeconds,
        concurrentClients: 64,
        styles: clients.map((c) => c.style),
        requests: result.requests,
        requestsPerSecond: Math.round(result.requests / elapsed),
        failedRequests: result.failures.length,
        acknowledgedCreates: result.acknowledged.length,
        readBackThroughService: sample.length,
        unreadableAcknowledged: missing.length,
        latencyP50Ms: Math.round(percentile(result.latenciesMillis, 50) * 10) / 10,
        latencyP99Ms: Math.round(percentile(result.latenciesMillis, 99) * 10) / 10,
        rssFirstThirdMiB: Math.round(firstThird),
        rssLastThirdMiB: Math.round(lastThird),
        rssMaxMiB: Math.round(Math.max(...rss)),
        rssEvery10sMiB: rss.filter((_, i) => i % 10 === 9).map(Math.round),
        liveLowestFirstThirdMiB: Math.round(liveFirstThird),
        liveLowestLastThirdMiB: Math.round(liveLastThird),
        liveLowestEvery10sMiB: Array.from({ length: Math.floor(live.length / 10) }, (_, i) => Math.round(Math.min(...live.slice(i * 10, i * 10 + 10))))
      })
      expect(result.failures.slice(0, 10)).toEqual([])
      expect(missing.slice(0, 10)).toEqual([])
      // Flat: what the process keeps alive (its heap and buffers at their lowest, just after a
      // full collection) is no more than a fifth higher in the last third than in the first, with
      // 16 MiB for the spread of that lowest value from one 10 s to the next. RSS is reported, not
      // judged: it also counts heap V8 has reserved and not given back, which in one CI run rose
      // from 289 to 517 MiB and fell to 443 while 150 s runs showed live memory level.
      expect(live.length).toBeGreaterThan(seconds / 2)
      expect(liveLastThird).toBeLessThan(liveFirstThird * 1.2 + 16)
    }).pipe(Effect.scoped), 600_000)
})
