import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Metric, Redacted } from "effect"
import pg from "pg"
import { Unavailable } from "../../src/domain/Errors.js"
import { OnboardingRequest } from "../../src/domain/Onboarding.js"
import { validate } from "../../src/domain/Validation.js"
import * as Database from "../../src/services/database/Database.js"
import { Onboarding, workflowOutcomes } from "../../src/services/Onboarding.js"
import { commitCutter } from "../support/CommitCutter.js"
import { uuid } from "../support/ids.js"
import { freshServerDatabase, serverUrl } from "../support/TestDatabase.js"
import { orphanQuery } from "../support/WorkflowAudit.js"

/*
 * An ambiguous COMMIT: the connection drops while COMMIT is in flight, so the client cannot tell
 * whether the server committed. A request without a workflow id must still onboard once: the
 * server fixes the id before the first attempt, so the retry finds the run if it committed, and
 * when no retry can tell, the caller is given the id to ask with.
 */

const request = (name: string, workflowId?: string) =>
  validate(OnboardingRequest)({
    ...(workflowId === undefined ? {} : { workflowOptions: { workflowId } }),
    license: { start: "2024-01-01T00:00:00Z", end: "2025-01-01T00:00:00Z" },
    org: { name },
    profile: { fullName: "Grace Hopper" }
  })

/** The workflow over a fresh database reached through a CommitCutter; `directUrl` bypasses it. */
const onboardingThroughCutter = Effect.gen(function*() {
  const database = yield* freshServerDatabase(serverUrl!)
  const target = new URL(database.url)
  const cutter = yield* commitCutter({ host: target.hostname, port: Number(target.port || 5432) })
  target.port = String(cutter.port)
  // A short budget, so that a run whose every COMMIT is cut gives up within the test's time.
  const services = yield* Layer.build(
    Onboarding.Default.pipe(
      Layer.provideMerge(
        Database.layer({ kind: "postgres", url: Redacted.make(target.toString()), poolSize: 2, operationTimeoutMillis: 2_000 })
      )
    )
  )
  const onboarding = Context.get(services, Onboarding)
  return {
    cutter,
    directUrl: database.url,
    // The budget and the pool's gate are read from the caller's context: the call needs the layer's.
    create: (request: OnboardingRequest) => Effect.provide(onboarding.create(request), services)
  }
})

/** What the database itself holds (read past the proxy): the run under `workflowId`, orgs named `orgName`, all rows. */
const stored = (url: string, workflowId: string, orgName: string) =>
  Effect.promise(async () => {
    const db = new pg.Client({ connectionString: url })
    await db.connect()
    try {
      const runs = await db.query(
        "select org_id as \"orgId\", profile_id as \"profileId\", license_id as \"licenseId\" from onboarding_runs where workflow_id = $1",
        [workflowId]
      )
      const totals = await db.query(
        `select (select count(*) from orgs where name = $1)::int as "orgsNamed",
                (select count(*) from orgs)::int as orgs,
                (select count(*) from profiles)::int as profiles,
                (select count(*) from licenses)::int as licenses`,
        [orgName]
      )
      const orphans = await db.query(orphanQuery)
      return { runs: runs.rows, ...totals.rows[0], orphans: orphans.rows[0] }
    } finally {
      await db.end()
    }
  })

/** One onboarding and nothing else: the fresh database holds a single run, org, profile and license. */
const oneTriple = { orgsNamed: 1, orgs: 1, profiles: 1, licenses: 1, orphans: { orgs: 0, profiles: 0, licenses: 0, runs: 1 } }

const outcomeCount = (outcome: "created" | "replayed" | "unknown") =>
  Effect.map(Metric.value(Metric.tagged(workflowOutcomes, "outcome", outcome)), (state) => state.count)

describe.skipIf(serverUrl === undefined)("an ambiguous COMMIT, for a request without a workflow id", () => {
  it.scopedLive("the server committed, the answer was lost: the retry finds the run, one onboarding", () =>
    Effect.gen(function*() {
      const { create, cutter, directUrl } = yield* onboardingThroughCutter
      const name = `Cut after commit ${uuid()}`
      const [createdBefore, replayedBefore] = [yield* outcomeCount("created"), yield* outcomeCount("replayed")]
      cutter.cutNext(1, "cutAfterForward")
      const result = yield* create(yield* request(name))
      expect(cutter.counts()).toMatchObject({ cut: 1 })
      const db = yield* stored(directUrl, result.workflowId, name)
      expect(db).toMatchObject(oneTriple)
      expect(db.runs).toEqual([{ orgId: result.orgId, profileId: result.profileId, licenseId: result.licenseId }])
      // The answer came from the run the cut COMMIT had stored (the server did commit): this
      // call's own run, so counted as created, not as a replay of an earlier request.
      expect([yield* outcomeCount("created"), yield* outcomeCount("replayed")]).toEqual([createdBefore + 1, replayedBefore])
    }))

  it.scopedLive("the COMMIT never reached the server: the retry creates the one onboarding", () =>
    Effect.gen(function*() {
      const { create, cutter, directUrl } = yield* onboardingThroughCutter
      const name = `Cut before commit ${uuid()}`
      const createdBefore = yield* outcomeCount("created")
      cutter.cutNext(1, "cutBeforeForward")
      const result = yield* create(yield* request(name))
      expect(cutter.counts()).toMatchObject({ cut: 1 })
      const db = yield* stored(directUrl, result.workflowId, name)
      expect(db).toMatchObject(oneTriple)
      expect(db.runs).toEqual([{ orgId: result.orgId, profileId: result.profileId, licenseId: result.licenseId }])
      // Nothing had been stored: the retry created the triple itself.
      expect(yield* outcomeCount("created")).toBe(createdBefore + 1)
    }))

  it.scopedLive("every COMMIT's answer lost, but a retry read the run: answered with it", () =>
    Effect.gen(function*() {
      const { create, cutter, directUrl } = yield* onboardingThroughCutter
      const name = `Every commit cut ${uuid()}`
      const createdBefore = yield* outcomeCount("created")
      cutter.cutNext(1_000, "cutAfterForward")
      const result = yield* create(yield* request(name))
      // The first attempt committed; the next found its run, and its own (read-only) COMMIT was cut too.
      expect(cutter.counts().cut).toBeGreaterThan(1)
      const db = yield* stored(directUrl, result.workflowId, name)
      expect(db).toMatchObject(oneTriple)
      expect(db.runs).toEqual([{ orgId: result.orgId, profileId: result.profileId, licenseId: result.licenseId }])
      // This call's own lost COMMIT made the run: counted as created, not replayed.
      expect(yield* outcomeCount("created")).toBe(createdBefore + 1)
    }))

  it.scopedLive("the COMMIT's answer lost and the database gone: unavailable naming the workflow id, under which a resend answers the run", () =>
    Effect.gen(function*() {
      const { create, cutter, directUrl } = yield* onboardingThroughCutter
      const name = `Commit cut, then down ${uuid()}`
      const unknownBefore = yield* outcomeCount("unknown")
      cutter.cutThenDown()
      const error = yield* Effect.flip(create(yield* request(name)))
      expect(cutter.counts().cut).toBe(1)
      expect(error).toBeInstanceOf(Unavailable)
      expect(error._tag).toBe("Unavailable")
      expect(yield* outcomeCount("unknown")).toBe(unknownBefore + 1)
      const workflowId = error.message.match(/workflow ([0-9a-f-]{36})/)?.[1]
      expect(workflowId, error.message).toBeDefined()
      expect(error.message).toContain(`workflowId ${workflowId}`)

      // The server did commit it: once, whole.
      const db = yield* stored(directUrl, workflowId!, name)
      expect(db).toMatchObject(oneTriple)
      expect(db.runs).toHaveLength(1)

      cutter.up()
      const resent = yield* create(yield* request(name, workflowId))
      expect(resent).toMatchObject({ workflowId, ...db.runs[0] })
      expect(yield* stored(directUrl, workflowId!, name)).toMatchObject(oneTriple)
    }))
})
