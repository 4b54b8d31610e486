import { describe, expect, layer } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { AlreadyExists, NotFound, type Unavailable } from "../../src/domain/Errors.js"
import { LicenseId, OrgId, ProfileId, UserId, WorkflowId } from "../../src/domain/Ids.js"
import { License } from "../../src/domain/License.js"
import { ListLicensesRequest } from "../../src/domain/License.js"
import { ListOnboardingWorkflowsRequest, OnboardingRequest } from "../../src/domain/Onboarding.js"
import { ListOrgsRequest, Org } from "../../src/domain/Org.js"
import type { Page } from "../../src/domain/Page.js"
import { ListProfilesRequest, Profile } from "../../src/domain/Profile.js"
import { CanonicalTimestamp } from "../../src/domain/Timestamp.js"
import { validate } from "../../src/domain/Validation.js"
import { InMemoryServices } from "../../src/services/InMemoryServices.js"
import { InMemoryStore } from "../../src/services/records/InMemoryStore.js"
import { Licenses } from "../../src/services/Licenses.js"
import { Onboarding } from "../../src/services/Onboarding.js"
import { Orgs } from "../../src/services/Orgs.js"
import { Profiles } from "../../src/services/Profiles.js"
import { WorkflowRuns } from "../../src/services/WorkflowRuns.js"
import { uuid } from "../support/ids.js"
import { rowCounts } from "../support/rows.js"
import { TestDatabase, testDatabaseKind } from "../support/TestDatabase.js"

/**
 * The rules a caller can see, held to by both kinds of layer: the SQL services and the in-memory
 * ones the transport tests run on. (What only SQL can show, rollback on a database error or
 * retries of a serialization failure, is in resources.test.ts and onboarding.test.ts.)
 */
const layers = {
  [`SQL (${testDatabaseKind})`]: Layer.mergeAll(Orgs.Default, Profiles.Default, Licenses.Default, Onboarding.Default).pipe(
    Layer.provide(TestDatabase)
  ),
  "in memory": InMemoryServices
}

const request = (workflowId?: string, name = "Acme") =>
  validate(OnboardingRequest)({
    ...(workflowId === undefined ? {} : { workflowOptions: { workflowId } }),
    license: { start: "2023-11-16T12:00:00Z", end: "2024-11-16T12:00:00+01:00" },
    org: { name },
    profile: { fullName: "Ada Lovelace" }
  })

/** Every page of a list, first to last, asked `size` rows at a time: the rows, and how many pages. */
// PGlite's now() moves in whole milliseconds, and two creates in a row can share one: a test that
// asserts their order makes them at least 2 ms apart (by the real clock: `it.effect`'s is a test one).
const apart = <A, E, R>(create: Effect.Effect<A, E, R>) =>
  Effect.zipLeft(create, Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 2))))

const allPages = <A, R>(
  size: number,
  listPage: (request: { pageSize: number; pageToken: string }) => Effect.Effect<Page<A>, unknown, R>
) =>
  Effect.gen(function*() {
    const rows: Array<A> = []
    let pages = 0
    let pageToken = ""
    do {
      const page = yield* listPage({ pageSize: size, pageToken })
      expect(page.items.length).toBeLessThanOrEqual(size)
      rows.push(...page.items)
      pages++
      pageToken = page.nextPageToken
    } while (pageToken !== "")
    return { rows, pages }
  })

const newProfile = (orgId: string, fullName: string) =>
  new Profile({ id: ProfileId.make(uuid()), fullName, orgId: OrgId.make(orgId) })

const failure = <A, E>(exit: Exit.Exit<A, E>) => (Exit.isFailure(exit) ? exit.cause : undefined)

for (const [kind, services] of Object.entries(layers)) {
  describe(`services: ${kind}`, () => {
    layer(services, { timeout: 60_000, excludeTestServices: true })((it) => {
      it.effect("a record is created under the caller's id, replayed with the same content, refused with other content", () =>
        Effect.gen(function*() {
          const orgs = yield* Orgs
          const org = new Org({ id: OrgId.make(uuid()), name: "Acme" })
          expect(yield* orgs.create(org)).toEqual(org)
          expect(yield* orgs.create(new Org({ id: org.id, name: "Acme" }))).toEqual(org)
          const other = yield* Effect.exit(orgs.create(new Org({ id: org.id, name: "Other" })))
          expect(failure(other)?.toString()).toContain(new AlreadyExists({ resource: "org", id: org.id }).message)
          expect(yield* orgs.get(org.id)).toEqual(org)
        }))

      it.effect("an unknown id is not found, for each resource", () =>
        Effect.gen(function*() {
          const missing = uuid()
          const gets: ReadonlyArray<Effect.Effect<unknown, NotFound | Unavailable>> = [
            (yield* Orgs).get(OrgId.make(missing)),
            (yield* Profiles).get(ProfileId.make(missing)),
            (yield* Licenses).get(LicenseId.make(missing)),
            (yield* Onboarding).getRun(WorkflowId.make(missing))
          ]
          for (const get of gets) {
            const exit = yield* Effect.exit(get)
            expect(Exit.isFailure(exit) && failure(exit)?.toString().includes("not found")).toBe(true)
          }
          const org = yield* Effect.flip((yield* Orgs).get(OrgId.make(missing)))
          expect(org).toEqual(new NotFound({ resource: "org", id: missing }))
        }))

      it.effect("profiles and licenses keep their content exactly", () =>
        Effect.gen(function*() {
          const profile = new Profile({ id: ProfileId.make(uuid()), fullName: "Grace Hopper", orgId: OrgId.make(uuid()) })
          expect(yield* (yield* Profiles).create(profile)).toEqual(profile)
          const license = new License({
            id: LicenseId.make(uuid()),
            userId: UserId.make(profile.id),
            start: CanonicalTimestamp.make("2023-11-16T12:00:00Z"),
            end: CanonicalTimestamp.make("2024-11-16T12:00:00.5Z")
          })
          expect(yield* (yield* Licenses).create(license)).toEqual(license)
          expect(yield* (yield* Licenses).get(license.id)).toEqual(license)
        }))

      it.effect("a workflow creates a linked org, profile and license, readable through each service", () =>
        Effect.gen(function*() {
          const result = yield* (yield* Onboarding).create(yield* request())
          const run = yield* (yield* Onboarding).getRun(result.workflowId)
          expect(run).toMatchObject({ ...result, status: "completed" })
          const profile = yield* (yield* Profiles).get(result.profileId)
          expect(profile.orgId).toBe(result.orgId)
          expect((yield* (yield* Licenses).get(result.licenseId)).userId).toBe(profile.id)
          expect((yield* (yield* Orgs).get(result.orgId)).name).toBe("Acme")
        }))

      it.effect("20 concurrent requests under one workflow id create one run and get one answer", () =>
        Effect.gen(function*() {
          const workflowId = uuid()
          const onboarding = yield* Onboarding
          const answers = yield* Effect.all(
            Array.from({ length: 20 }, () => Effect.flatMap(request(workflowId), onboarding.create)),
            { concurrency: "unbounded" }
          )
          expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1)
          expect(answers[0]!.workflowId).toBe(workflowId)
        }))

      it.effect("the same workflow id with another request is refused and creates nothing", () =>
        Effect.gen(function*() {
          const workflowId = uuid()
          const onboarding = yield* Onboarding
          const first = yield* onboarding.create(yield* request(workflowId))
          const refused = yield* Effect.flip(onboarding.create(yield* request(workflowId, "Someone else")))
          expect(refused).toEqual(new AlreadyExists({ resource: "workflow", id: workflowId }))
          expect((yield* onboarding.getRun(first.workflowId)).orgId).toBe(first.orgId)
        }))

      it.effect("a filtered list pages newest first, each row once, its last page without a token", () =>
        Effect.gen(function*() {
          const profiles = yield* Profiles
          const [org, elsewhere] = [uuid(), uuid()]
          const created = []
          for (const name of ["one", "two", "three", "four", "five"]) created.push(yield* apart(profiles.create(newProfile(org, name))))
          yield* profiles.create(newProfile(elsewhere, "not listed"))
          const list = (page: object) =>
            Effect.flatMap(validate(ListProfilesRequest)({ ...page, orgId: org }), (request) => profiles.list(request.query))
          const { pages, rows } = yield* allPages(2, list)
          expect(rows).toEqual(created.reverse())
          expect(pages).toBe(3)
          const exact = yield* allPages(5, list)
          expect(exact.pages).toBe(1)
        }))

      it.effect("licenses list by user; orgs and workflow runs list newest first", () =>
        Effect.gen(function*() {
          const licenses = yield* Licenses
          const userId = UserId.make(uuid())
          const mine = []
          for (const end of ["2024-01-01T00:00:00Z", "2025-01-01T00:00:00.5Z"]) {
            mine.push(yield* apart(licenses.create(new License({
              id: LicenseId.make(uuid()),
              userId,
              start: CanonicalTimestamp.make("2023-01-01T00:00:00Z"),
              end: CanonicalTimestamp.make(end)
            }))))
          }
          const byUser = yield* allPages(
            1,
            (page) => Effect.flatMap(validate(ListLicensesRequest)({ ...page, userId }), (r) => licenses.list(r.query))
          )
          expect(byUser.rows).toEqual(mine.reverse())

          const orgs = yield* Orgs
          const newest = []
          for (const name of ["a", "b", "c"]) newest.unshift(yield* apart(orgs.create(new Org({ id: OrgId.make(uuid()), name }))))
          const firstOrgs = yield* orgs.list((yield* validate(ListOrgsRequest)({ pageSize: 3 })).query)
          expect(firstOrgs.items).toEqual(newest)

          const onboarding = yield* Onboarding
          const first = yield* apart(onboarding.create(yield* request()))
          const second = yield* onboarding.create(yield* request())
          const runs = yield* onboarding.listRuns(
            (yield* validate(ListOnboardingWorkflowsRequest)({ pageSize: 2, status: "completed" })).query
          )
          expect(runs.items.map((run) => run.workflowId)).toEqual([second.workflowId, first.workflowId])
          expect(runs.nextPageToken).not.toBe("")
          // The workflow's org is the newest org: its rows are created with its run.
          const latestOrg = yield* orgs.list((yield* validate(ListOrgsRequest)({ pageSize: 1 })).query)
          expect(latestOrg.items.map((org) => org.id)).toEqual([second.orgId])
        }))

      it.effect("a listing under concurrent inserts skips and repeats no row that existed when it began", () =>
        Effect.gen(function*() {
          const profiles = yield* Profiles
          const org = uuid()
          const before: Array<string> = []
          for (let i = 0; i < 40; i++) before.push((yield* profiles.create(newProfile(org, `before ${i}`))).id)
          const list = (page: object) =>
            Effect.flatMap(validate(ListProfilesRequest)({ ...page, orgId: org }), (r) => profiles.list(r.query))
          const inserting = Effect.forEach(
            Array.from({ length: 40 }, (_, i) => i),
            (i) => Effect.zipRight(Effect.sleep("1 millis"), profiles.create(newProfile(org, `during ${i}`))),
            { concurrency: 4, discard: true }
          )
          // Their order is the listing's own, read before the inserts begin: newest first, and by id
          // among rows created in the same instant (PGlite's clock moves in whole milliseconds, and
          // two creates in a row can share one).
          const ordered = (yield* allPages(3, list)).rows.map((profile) => profile.id)
          expect([...ordered].sort()).toEqual([...before].sort())
          const [{ rows }] = yield* Effect.all([allPages(3, list), inserting], { concurrency: 2 })
          const listed: Array<string> = rows.map((profile) => profile.id)
          expect(new Set(listed).size).toBe(listed.length)
          expect(before.filter((id) => !listed.includes(id))).toEqual([])
          // Those that existed come in that order, whatever was listed among them.
          expect(listed.filter((id) => before.includes(id))).toEqual(ordered)
        }))
    })
  })
}

/** The in-memory Licenses, refusing every create: the workflow's last step fails. */
const RefusingLicenses = Layer.effect(
  Licenses,
  Effect.map(Licenses, (real) =>
    Licenses.make({ ...real, create: (license) => Effect.fail(new AlreadyExists({ resource: "license", id: license.id })) }))
).pipe(Layer.provide(Licenses.InMemory))

describe("the workflow in memory is the real one, all or nothing", () => {
  const services = Onboarding.DefaultWithoutDependencies.pipe(
    Layer.provide([Orgs.InMemory, Profiles.InMemory, RefusingLicenses, WorkflowRuns.InMemory]),
    Layer.provideMerge(InMemoryStore.layer)
  )
  layer(services)((it) => {
    it.effect("a workflow whose license is refused leaves no org, profile or run, and answers the refusal", () =>
      Effect.gen(function*() {
        const workflowId = uuid()
        const refused = yield* Effect.flip((yield* Onboarding).create(yield* request(workflowId)))
        expect(refused._tag).toBe("AlreadyExists")
        expect(yield* rowCounts).toEqual({ orgs: 0, profiles: 0, licenses: 0, runs: 0 })
        expect(yield* Effect.flip((yield* Onboarding).getRun(WorkflowId.make(workflowId)))).toEqual(
          new NotFound({ resource: "workflow", id: workflowId })
        )
      }))
  })
})
