import { PGlite } from "@electric-sql/pglite"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { connectClients } from "../e2e/support/connectClient.js"
import { freePort, type Running, startProcess, stopProcess } from "../e2e/support/Processes.js"
import { recordFigures } from "../support/Figures.js"
import { type Acknowledged, runLoad, unreadable } from "../support/Load.js"
import { freshServerDatabase, serverUrl } from "../support/TestDatabase.js"
import { auditWorkflows, orphanQuery } from "../support/WorkflowAudit.js"

const rounds = 3
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Streams workflows at the process and kills it with SIGKILL while they are in flight, `rounds`
 * times, restarting it each time. Returns every workflow a client saw acknowledged.
 */
const crashRounds = async (start: () => Promise<Running>, workflowUrl: string) => {
  const urls = { org: workflowUrl, profile: workflowUrl, license: workflowUrl, workflow: workflowUrl }
  const acknowledged: Array<Acknowledged> = []
  let requests = 0
  let unacknowledged = 0
  for (let round = 0; round < rounds; round++) {
    const running = await start()
    let load = true
    const streaming = runLoad({
      clients: [connectClients[0]!.make(urls)],
      concurrency: 8,
      mix: ["workflow"],
      running: () => load,
      onFailure: () => "count"
    })
    await sleep(800 + Math.random() * 800)
    running.child.kill("SIGKILL")
    await running.exited
    load = false
    const result = await streaming
    acknowledged.push(...result.acknowledged)
    requests += result.requests
    unacknowledged += result.failures.length
  }
  return { acknowledged, requests, unacknowledged }
}

describe("kill -9 of the workflow process while it runs a stream of workflows", () => {
  it.live.skipIf(serverUrl === undefined)("on PostgreSQL: every acknowledged workflow survives, no half-made rows", () =>
    Effect.gen(function*() {
      const database = yield* freshServerDatabase(serverUrl!)
      const port = yield* Effect.promise(freePort)
      const start = () => startProcess("workflow", { DATABASE_URL: database.url, PORT: String(port) }, 1)
      const url = `http://127.0.0.1:${port}`
      const run = yield* Effect.promise(() => crashRounds(start, url))

      const restarted = yield* Effect.acquireRelease(Effect.promise(start), (p) => Effect.promise(() => stopProcess(p)))
      const client = connectClients[0]!.make({ org: url, profile: url, license: url, workflow: url })
      // Each acknowledged run with its org, a profile in that org and a license for that profile.
      const audit = yield* Effect.promise(() => auditWorkflows(database.url, run.acknowledged))
      const missing = yield* Effect.promise(() => unreadable(client, run.acknowledged, { runsOnly: true }))
      recordFigures("crash-postgresql", {
        kills: rounds,
        restartsSurvived: rounds,
        workflowsSent: run.requests,
        acknowledged: run.acknowledged.length,
        unacknowledgedAtKill: run.unacknowledged,
        acknowledgedFoundInDatabase: audit.complete,
        unreadableAcknowledged: missing.length,
        rowsWithoutRunRecord: audit.orphans
      })
      expect(run.acknowledged.length).toBeGreaterThan(0)
      expect(audit.complete).toBe(run.acknowledged.length)
      expect(missing).toEqual([])
      expect(audit.orphans).toMatchObject({ orgs: 0, profiles: 0, licenses: 0 })
      expect(restarted.child.exitCode).toBeNull()
    }).pipe(Effect.scoped), 180_000)

  it.live.skipIf(serverUrl !== undefined)("on the embedded database: every acknowledged workflow survives, no half-made rows", () =>
    Effect.gen(function*() {
      const dataDir = mkdtempSync(join(tmpdir(), "onboarding-crash-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
      const ports = yield* Effect.promise(() => Promise.all([freePort(), freePort(), freePort(), freePort()]))
      const start = () =>
        startProcess("all", {
          DATA_DIR: dataDir,
          ORG_PORT: String(ports[0]),
          PROFILE_PORT: String(ports[1]),
          LICENSE_PORT: String(ports[2]),
          WORKFLOW_PORT: String(ports[3])
        }, 4)
      const urls = {
        org: `http://127.0.0.1:${ports[0]}`,
        profile: `http://127.0.0.1:${ports[1]}`,
        license: `http://127.0.0.1:${ports[2]}`,
        workflow: `http://127.0.0.1:${ports[3]}`
      }
      const run = yield* Effect.promise(() => crashRounds(start, urls.workflow))

      // Restart on the same data directory and read everything back through the services.
      const restarted = yield* Effect.promise(start)
      const missing = yield* Effect.promise(() => unreadable(connectClients[0]!.make(urls), run.acknowledged))
      expect(yield* Effect.promise(() => stopProcess(restarted))).toBe(0)

      // Then look at the files directly for rows that no run record accounts for.
      const db = yield* Effect.promise(() => PGlite.create(dataDir))
      const orphans = (yield* Effect.promise(() => db.query(orphanQuery))).rows[0]
      yield* Effect.promise(() => db.close())
      recordFigures("crash-embedded", {
        kills: rounds,
        restartsSurvived: rounds,
        workflowsSent: run.requests,
        acknowledged: run.acknowledged.length,
        unacknowledgedAtKill: run.unacknowledged,
        unreadableAcknowledged: missing.length,
        rowsWithoutRunRecord: orphans
      })
      expect(run.acknowledged.length).toBeGreaterThan(0)
      expect(missing).toEqual([])
      expect(orphans).toMatchObject({ orgs: 0, profiles: 0, licenses: 0 })
    }).pipe(Effect.scoped), 240_000)
})
