import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { Duration, Effect, Exit, Fiber, Layer } from "effect"
import * as http2 from "node:http2"
import pg from "pg"
import { OperationBudget } from "../../src/services/database/Transient.js"
import { Services } from "../support/Services.js"
import { startAllInOne, stopProcess } from "../e2e/support/Processes.js"
import { recordFigures, rssMiB } from "../support/Figures.js"
import { inProcessServers } from "../support/InProcessServers.js"
import { sqlServicesOver } from "../support/SqlServices.js"
import { freshServerDatabase, serverUrl, testDatabaseKind, testDatabaseWith } from "../support/TestDatabase.js"
import { cancelFlood, h2Get } from "./support/heldWork.js"

/*
 * Issue 24, item 1: one client could crash the process. A caller that goes away leaves its
 * database work running, detached, and freed its in-flight slot, so the work waiting for a
 * connection had no bound; pg-pool keeps an interrupted waiter in its queue, and a release then
 * recursed through all of them: `RangeError: Maximum call stack size exceeded`. Both of the issue's
 * reproductions, on the embedded database and on PostgreSQL. Now a unit of work holds a permit
 * (one per connection) until it ends, at most DATABASE_POOL_MAX_WAITING wait for one, and the
 * next is answered unavailable at once.
 */

describe(`a client that cancels every request it sends (${testDatabaseKind})`, () => {
  it.live("cannot crash the all-in-one process", () =>
    Effect.gen(function*() {
      const database = serverUrl === undefined ? undefined : yield* freshServerDatabase(serverUrl)
      const services = yield* Effect.acquireRelease(
        // A short budget: the work the cancelled requests left piles up and runs out of it in
        // seconds, where the default (10 s) needed a longer flood.
        Effect.promise(() =>
          startAllInOne({
            DATABASE_OPERATION_TIMEOUT_MS: "1000",
            ...(database === undefined ? {} : { DATABASE_URL: database.url })
          })
        ),
        ({ running }) => Effect.promise(() => stopProcess(running))
      )
      const { running } = services
      let exited: number | null | undefined
      void running.exited.then((code) => (exited = code))
      // Rows to list, so that each cancelled GET leaves real work behind.
      yield* Effect.promise(() =>
        Promise.all(Array.from({ length: 100 }, (_, i) =>
          fetch(`${services.org}/orgs`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ name: `Held work ${i}` })
          }).then((reply) => reply.text())))
      )
      let peakRss = rssMiB(running.child.pid!)
      const sampler = setInterval(() => {
        if (exited === undefined) peakRss = Math.max(peakRss, rssMiB(running.child.pid!))
      }, 100)
      const sent = yield* Effect.promise(() =>
        cancelFlood(services.org, { connections: 4, path: "/orgs?pageSize=100", perTurn: 50, millis: 6_000 })
      ).pipe(Effect.ensuring(Effect.sync(() => clearInterval(sampler))))

      // The work the cancelled requests left ends within its budget; the process is still there.
      const after = yield* Effect.promise(async () => {
        for (let attempt = 0; attempt < 40; attempt++) {
          if (exited !== undefined) break
          const reply = await fetch(`${services.org}/orgs?pageSize=1`).catch(() => undefined)
          if (reply?.status === 200) return 200
          await new Promise((resolve) => setTimeout(resolve, 500))
        }
        return undefined
      })
      recordFigures(`held-work-cancel-flood-${serverUrl === undefined ? "embedded" : "postgresql"}`, {
        database: testDatabaseKind,
        requestsSentAndCancelled: sent,
        peakRssMiB: Math.round(peakRss),
        exited: exited ?? "no",
        listAfterwards: after ?? "no answer"
      })
      expect(exited, running.output().slice(-3_000)).toBeUndefined()
      expect(after).toBe(200)
    }).pipe(Effect.scoped), { timeout: 120_000 })
})

const budget = Duration.millis(1_500)
/** Longer than the budget: every caller waiting behind the lock is answered before it ends. */
const lockHeld = Duration.millis(2_500)
const callersPerPath = 1_000
const streamsPerSession = 100

/** `callersPerPath` concurrent HTTP/2 GETs on each of `targets`, `streamsPerSession` per connection. */
const callEach = (targets: ReadonlyArray<readonly [url: string, path: string]>) =>
  Promise.all(targets.flatMap(([url, path]) =>
    Array.from({ length: callersPerPath / streamsPerSession }, async () => {
      const session = http2.connect(url)
      session.on("error", () => {})
      try {
        return await Promise.all(Array.from({ length: streamsPerSession }, () => h2Get(session, path)))
      } finally {
        session.close()
      }
    })
  )).then((groups) => groups.flat())

/** How many answers had each status (or each error, for a stream that got none). */
const tally = (answers: ReadonlyArray<{ readonly status: number | undefined; readonly error?: string }>) => {
  const statuses: Record<string, number> = {}
  for (const answer of answers) {
    const key = answer.error ?? String(answer.status)
    statuses[key] = (statuses[key] ?? 0) + 1
  }
  return statuses
}

describe(`the database locked while ${3 * callersPerPath} callers wait (${testDatabaseKind})`, () => {
  layer(
    // A queue far shorter than the callers: however fast they arrive (a loaded machine spreads
    // them over seconds, and with the default 1024 none may find the queue full), some are
    // refused at once.
    inProcessServers({}, Layer.merge(sqlServicesOver(testDatabaseWith({ maxWaiting: 128 })), Layer.succeed(OperationBudget, budget))),
    { timeout: 120_000, excludeTestServices: true }
  )((it) => {
    it.effect("every caller is answered, the process survives the lock's release, and answers afterwards", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const sql = yield* SqlClient.SqlClient
        const holding = yield* Effect.fork(
          sql.withTransaction(
            sql`lock table orgs, profiles, licenses in access exclusive mode`.pipe(Effect.zipRight(Effect.sleep(lockHeld)))
          )
        )
        yield* Effect.sleep(Duration.millis(200))

        const targets = [[urls.org, "/orgs"], [urls.profile, "/profiles"], [urls.license, "/licenses"]] as const
        const answers = yield* Effect.promise(() => callEach(targets))
        // The lock's release hands its connection on through the pool: before the fix, through
        // every waiter that had given up, recursively, until the stack overflowed.
        const released = yield* Fiber.await(holding)
        yield* Effect.sleep(Duration.millis(500))

        const statuses = tally(answers)
        const refusedAtOnce = answers.filter((answer) => answer.body.includes("DATABASE_POOL_MAX_WAITING")).length
        const afterwards = yield* Effect.promise(() =>
          Promise.all(targets.map(([url, path]) => fetch(`${url}${path}?pageSize=1`).then((reply) => reply.status)))
        )
        recordFigures(`held-work-lock-${serverUrl === undefined ? "embedded" : "postgresql"}`, {
          database: testDatabaseKind,
          callers: answers.length,
          statuses,
          refusedAtOnce,
          afterwards
        })
        expect(released, "the lock holder's release").toStrictEqual(Exit.void)
        expect(answers).toHaveLength(3 * callersPerPath)
        // Each answered: 503 while locked (at once beyond the queue, or at the budget), never a
        // reset stream; a call that got in after the lock ended may have succeeded.
        expect(Object.keys(statuses).every((key) => key === "503" || key === "200"), JSON.stringify(statuses)).toBe(true)
        expect(refusedAtOnce).toBeGreaterThan(0)
        expect(afterwards).toEqual([200, 200, 200])
      }))
  })
})

describe.skipIf(serverUrl === undefined)(
  `the tables locked on the PostgreSQL server while ${3 * callersPerPath} callers of the all-in-one process wait`,
  () => {
    it.live("every caller is answered, and the process survives the lock's release", () =>
      Effect.gen(function*() {
        const database = yield* freshServerDatabase(serverUrl!)
        const services = yield* Effect.acquireRelease(
          Effect.promise(() =>
            startAllInOne({ DATABASE_URL: database.url })
          ),
          ({ running }) => Effect.promise(() => stopProcess(running))
        )
        const { running } = services
        let exited: number | null | undefined
        void running.exited.then((code) => (exited = code))
        const [org, profile, license] = services.ports.map((port) => `http://127.0.0.1:${port}`) as [string, string, string]
        const locker = new pg.Client({ connectionString: database.url })
        yield* Effect.promise(() => locker.connect())
        yield* Effect.addFinalizer(() => Effect.promise(() => locker.end()))
        yield* Effect.promise(() => locker.query("begin; lock table orgs, profiles, licenses in access exclusive mode"))
        // The figures: longer than the default budget (10 s), so that every caller has
        // been answered 503 and every wait abandoned when the lock goes.
        const unlock = setTimeout(() => void locker.query("commit"), 11_000)
        const answers = yield* Effect.promise(() =>
          callEach([[org, "/orgs"], [profile, "/profiles"], [license, "/licenses"]])
        ).pipe(Effect.ensuring(Effect.sync(() => clearTimeout(unlock))))
        yield* Effect.promise(() => locker.query("commit").catch(() => undefined))
        yield* Effect.sleep(Duration.millis(1_000))
        const afterwards = exited === undefined
          ? yield* Effect.promise(() => fetch(`${org}/orgs?pageSize=1`).then((reply) => reply.status, () => undefined))
          : undefined
        const statuses = tally(answers)
        recordFigures("held-work-lock-postgresql-process", { callers: answers.length, statuses, exited: exited ?? "no", afterwards })
        expect(exited, running.output().slice(-3_000)).toBeUndefined()
        expect(Object.keys(statuses).every((key) => key === "503" || key === "200"), JSON.stringify(statuses)).toBe(true)
        expect(afterwards).toBe(200)
      }).pipe(Effect.scoped), { timeout: 120_000 })
  }
)
