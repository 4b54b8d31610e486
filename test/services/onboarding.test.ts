import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Cause, Duration, Effect, Exit, Layer } from "effect"
import { AlreadyExists, NotFound, Unavailable } from "../../src/domain/Errors.js"
import { WorkflowId } from "../../src/domain/Ids.js"
import { OnboardingRequest } from "../../src/domain/Onboarding.js"
import { validate } from "../../src/domain/Validation.js"
import { Licenses } from "../../src/services/Licenses.js"
import { Onboarding } from "../../src/services/Onboarding.js"
import { WorkflowRuns } from "../../src/services/WorkflowRuns.js"
import { Orgs } from "../../src/services/Orgs.js"
import { Profiles } from "../../src/services/Profiles.js"
import { databaseOperation, OperationBudget } from "../../src/services/database/Transient.js"
import { uuid } from "../support/ids.js"
import { rowCounts } from "../support/rows.js"
import { reportingRetries } from "../support/Retries.js"
import { testDatabases } from "../support/TestDatabase.js"

const request = (overrides: { workflowId?: string; name?: string } = {}) =>
  validate(OnboardingRequest)({
    ...(overrides.workflowId === undefined ? {} : { workflowOptions: { workflowId: overrides.workflowId } }),
    license: { start: "2023-11-16T12:00:00Z", end: "2024-11-16T12:00:00+01:00" },
    org: { name: overrides.name ?? "Acme" },
    profile: { fullName: "Ada Lovelace" }
  })

/** The workflow with a Licenses layer of the test's choosing; the other services are the real ones. */
const withLicenses = (licenses: Layer.Layer<Licenses, never, SqlClient.SqlClient>) =>
  Effect.provide(
    Layer.mergeAll(
      Onboarding.DefaultWithoutDependencies.pipe(Layer.provide([Orgs.Default, Profiles.Default, licenses, WorkflowRuns.Sql])),
      Orgs.Default,
      Profiles.Default,
      Licenses.Default
    )
  )

const realServices = withLicenses(Licenses.Default)

/**
 * For the suites that queue hundreds of workflows on one connection: what they check is the
 * outcome, not how soon it comes, so the budget that turns a slow wait into `unavailable` is set
 * past anything a busy machine takes (the default, 10 s, ran out with both cores overloaded).
 */
const unhurried = Effect.provideService(OperationBudget, Duration.minutes(10))

const refusal = new AlreadyExists({ resource: "license", id: "00000000-0000-0000-0000-000000000001" })

/** Wraps the real Licenses so that its first `failures` creates fail as `fail` says. */
const licensesFailing = (
  failures: number,
  fail: (sql: SqlClient.SqlClient) => Effect.Effect<never, AlreadyExists | Unavailable>
) =>
  Layer.effect(
    Licenses,
    Effect.gen(function*() {
      const real = yield* Licenses
      const sql = yield* SqlClient.SqlClient
      let calls = 0
      return Licenses.make({
        get: real.get,
        list: real.list,
        create: (license) => (calls++ < failures ? fail(sql) : real.create(license))
      })
    })
  ).pipe(Layer.provide(Licenses.Default))

/** A real serialization failure raised by the database inside the workflow's transaction. */
const serializationFailure = (sql: SqlClient.SqlClient) =>
  databaseOperation(
    sql`do $$ begin raise exception 'simulated conflict' using errcode = 'serialization_failure'; end $$`
  ).pipe(Effect.zipRight(Effect.dieMessage("the database did not raise")))

/** The row counts after one more workflow: an org, a profile, a license and their run. */
const oneTripleMore = (before: { orgs: number; profiles: number; licenses: number; runs: number }) => ({
  orgs: before.orgs + 1,
  profiles: before.profiles + 1,
  licenses: before.licenses + 1,
  runs: before.runs + 1
})

/** Reads a run's three records back and checks they are linked as contract §4 says. */
const expectLinkedTriple = (workflowId: WorkflowId) =>
  Effect.gen(function*() {
    const run = yield* (yield* Onboarding).getRun(workflowId)
    const org = yield* (yield* Orgs).get(run.orgId)
    const profile = yield* (yield* Profiles).get(run.profileId)
    const license = yield* (yield* Licenses).get(run.licenseId)
    expect(profile.orgId).toBe(org.id)
    expect(license.userId).toBe(profile.id)
    return { run, org, profile, license }
  })

for (const database of testDatabases) describe(`onboarding on ${database.kind}`, () => {
  // Live services: the retry backoff must really sleep, not wait on a test clock.
  layer(database.layer, { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("a workflow creates an org, a profile in it and a license for that profile", () =>
      Effect.gen(function*() {
        const result = yield* (yield* Onboarding).create(yield* request())
        const { license, org, profile, run } = yield* expectLinkedTriple(result.workflowId)
        expect(run).toMatchObject({ ...result, status: "completed" })
        // Canonical form: fractional seconds only when non-zero, without trailing zeros.
        expect(run.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d*[1-9])?Z$/)
        expect(org.name).toBe("Acme")
        expect(profile.fullName).toBe("Ada Lovelace")
        expect(license.start).toBe("2023-11-16T12:00:00Z")
        expect(license.end).toBe("2024-11-16T11:00:00Z")
        expect(new Set([result.workflowId, result.orgId, result.profileId, result.licenseId]).size).toBe(4)
      }).pipe(realServices))

    it.effect("an unknown workflow run is not found", () =>
      Effect.gen(function*() {
        const id = WorkflowId.make(uuid())
        expect(yield* Effect.flip((yield* Onboarding).getRun(id))).toEqual(new NotFound({ resource: "workflow", id }))
      }).pipe(realServices))

    it.effect("a license that fails after the org and profile were written leaves no org, profile, license or run", () =>
      Effect.gen(function*() {
        const before = yield* rowCounts
        const exit = yield* Effect.exit((yield* Onboarding).create(yield* request()))
        expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
        expect(yield* rowCounts).toEqual(before)
      }).pipe(withLicenses(licensesFailing(1, () => Effect.dieMessage("license store broke")))))

    it.effect("a license refused with a domain error reaches the caller and rolls everything back", () =>
      Effect.gen(function*() {
        const before = yield* rowCounts
        const error = yield* Effect.flip((yield* Onboarding).create(yield* request()))
        expect(error).toEqual(refusal)
        expect(yield* rowCounts).toEqual(before)
      }).pipe(withLicenses(licensesFailing(1, () => Effect.fail(refusal)))))

    it.effect("200 concurrent workflows complete with 200 linked triples and 800 distinct ids", () =>
      Effect.gen(function*() {
        const onboarding = yield* Onboarding
        const before = yield* rowCounts
        const results = yield* Effect.forEach(
          Array.from({ length: 200 }, (_, i) => i),
          (i) => Effect.flatMap(request({ name: `Org ${i}` }), onboarding.create),
          { concurrency: "unbounded" }
        )
        const ids = results.flatMap((r) => [r.workflowId, r.orgId, r.profileId, r.licenseId])
        expect(new Set(ids).size).toBe(800)
        yield* Effect.forEach(results, (r) => expectLinkedTriple(r.workflowId), { concurrency: 16 })
        const after = yield* rowCounts
        expect(after).toEqual({
          orgs: before.orgs + 200,
          profiles: before.profiles + 200,
          licenses: before.licenses + 200,
          runs: before.runs + 200
        })
      }).pipe(reportingRetries(`retries 200 workflows ${database.kind}`), realServices, unhurried), 600_000)

    it.effect("20 concurrent requests with one workflow id create one triple and get 20 identical answers", () =>
      Effect.gen(function*() {
        const onboarding = yield* Onboarding
        const workflowId = uuid()
        const before = yield* rowCounts
        const answers = yield* Effect.forEach(
          Array.from({ length: 20 }),
          () => Effect.flatMap(request({ workflowId }), onboarding.create),
          { concurrency: "unbounded" }
        )
        expect(answers.every((a) => a.workflowId === workflowId)).toBe(true)
        expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1)
        expect(yield* rowCounts).toEqual(oneTripleMore(before))
        yield* expectLinkedTriple(answers[0]!.workflowId)

        const other = yield* Effect.flip(onboarding.create(yield* request({ workflowId, name: "Someone else" })))
        expect(other).toEqual(new AlreadyExists({ resource: "workflow", id: workflowId }))
        expect((yield* rowCounts).orgs).toBe(before.orgs + 1)
      }).pipe(reportingRetries(`retries 20 same workflow ${database.kind}`), realServices, unhurried), 600_000)

    it.effect("a serialization failure on the first attempts is retried and creates one triple", () =>
      Effect.gen(function*() {
        const before = yield* rowCounts
        const result = yield* (yield* Onboarding).create(yield* request())
        yield* expectLinkedTriple(result.workflowId)
        expect(yield* rowCounts).toEqual(oneTripleMore(before))
      }).pipe(withLicenses(licensesFailing(2, serializationFailure))))

    it.effect("a serialization failure at COMMIT is retried like any other, and creates one triple", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        // A deferred trigger fails the first two commits; a sequence counts them, as a rollback
        // does not undo it. Serializable engines refuse conflicting transactions this way.
        yield* sql`create sequence commit_conflicts`
        yield* sql`create function conflict_at_commit() returns trigger language plpgsql as $$
          begin
            if nextval('commit_conflicts') <= 2 then
              raise exception 'simulated conflict at commit' using errcode = 'serialization_failure';
            end if;
            return null;
          end $$`
        yield* sql`create constraint trigger conflict_at_commit after insert on onboarding_runs
          deferrable initially deferred for each row execute function conflict_at_commit()`
        const before = yield* rowCounts
        const result = yield* (yield* Onboarding).create(yield* request()).pipe(
          Effect.ensuring(
            Effect.orDie(sql`drop trigger conflict_at_commit on onboarding_runs; drop function conflict_at_commit(); drop sequence commit_conflicts`)
          )
        )
        yield* expectLinkedTriple(result.workflowId)
        expect(yield* rowCounts).toEqual(oneTripleMore(before))
      }).pipe(realServices))

    it.effect("a database that keeps failing transiently ends in unavailable with nothing written", () =>
      Effect.gen(function*() {
        const before = yield* rowCounts
        const error = yield* Effect.flip((yield* Onboarding).create(yield* request()))
        expect(error).toBeInstanceOf(Unavailable)
        expect(yield* rowCounts).toEqual(before)
      }).pipe(withLicenses(licensesFailing(Number.POSITIVE_INFINITY, serializationFailure))))
  })
})
