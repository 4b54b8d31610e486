import { describe, expect, layer } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Exit, Layer } from "effect"
import { AlreadyExists, NotFound } from "../../src/domain/Errors.js"
import { LicenseId, OrgId, ProfileId, UserId } from "../../src/domain/Ids.js"
import { License } from "../../src/domain/License.js"
import { Org } from "../../src/domain/Org.js"
import { Profile } from "../../src/domain/Profile.js"
import { CanonicalTimestamp } from "../../src/domain/Timestamp.js"
import { validate } from "../../src/domain/Validation.js"
import { Licenses } from "../../src/services/Licenses.js"
import { databaseOperation } from "../../src/services/database/Transient.js"
import { Orgs } from "../../src/services/Orgs.js"
import { Profiles } from "../../src/services/Profiles.js"
import { testDatabases } from "../support/TestDatabase.js"
import { uuid } from "../support/ids.js"

const services = Layer.mergeAll(Orgs.Default, Profiles.Default, Licenses.Default)

const failureOf = <A, E>(exit: Exit.Exit<A, E>) => (Exit.isFailure(exit) ? exit.cause : undefined)

for (const database of testDatabases) describe(`resources on ${database.kind}`, () => {
  layer(services.pipe(Layer.provideMerge(database.layer)), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("callers that go away mid-statement never fail other callers' statements", () =>
      Effect.gen(function*() {
        const orgs = yield* Orgs
        const sql = yield* SqlClient.SqlClient
        const org = new Org({ id: OrgId.make(uuid()), name: "Busy Inc" })
        yield* orgs.create(org)
        // Readers abandoned after a moment, beside statements that must all succeed and keep the
        // connections busy: interrupting a statement once cancelled it by backend pid, often after
        // its connection had moved on to another caller's statement (found by the benchmark).
        const abandoned = Effect.forEach(
          Array.from({ length: 200 }),
          (_, i) => orgs.get(org.id).pipe(Effect.timeout(`${1 + (i % 3)} millis`), Effect.ignore),
          { concurrency: 8, discard: true }
        )
        const kept = Effect.forEach(
          Array.from({ length: 200 }),
          () => databaseOperation(sql`select pg_sleep(0.003), 1 as one`),
          { concurrency: 8 }
        )
        const [, rows] = yield* Effect.all([abandoned, kept], { concurrency: 2 })
        expect(rows.length).toBe(200)
      }))

    it.effect("an org can be created and read back", () =>
      Effect.gen(function*() {
        const orgs = yield* Orgs
        const org = new Org({ id: OrgId.make(uuid()), name: "Acme" })
        expect(yield* orgs.create(org)).toEqual(org)
        expect(yield* orgs.get(org.id)).toEqual(org)
      }))

    it.effect("creating the same org twice with the same content answers with the stored org", () =>
      Effect.gen(function*() {
        const orgs = yield* Orgs
        const org = new Org({ id: OrgId.make(uuid()), name: "Replay Inc" })
        yield* orgs.create(org)
        expect(yield* orgs.create(new Org({ id: org.id, name: "Replay Inc" }))).toEqual(org)
      }))

    it.effect("an org id reused with another name is already-exists and keeps the first name", () =>
      Effect.gen(function*() {
        const orgs = yield* Orgs
        const org = new Org({ id: OrgId.make(uuid()), name: "First" })
        yield* orgs.create(org)
        const error = yield* Effect.flip(orgs.create(new Org({ id: org.id, name: "Second" })))
        expect(error).toEqual(new AlreadyExists({ resource: "org", id: org.id }))
        expect((yield* orgs.get(org.id)).name).toBe("First")
      }))

    it.effect("an unknown org is not found", () =>
      Effect.gen(function*() {
        const id = OrgId.make(uuid())
        const error = yield* Effect.flip((yield* Orgs).get(id))
        expect(error).toEqual(new NotFound({ resource: "org", id }))
        expect(error.message).toBe(`org ${id} not found`)
      }))

    it.effect("an upper-case id is stored and answered in lowercase", () =>
      Effect.gen(function*() {
        const orgs = yield* Orgs
        const upper = uuid().toUpperCase()
        const org = yield* validate(Org)({ id: upper, name: "Shouty" })
        yield* orgs.create(org)
        const read = yield* orgs.get(yield* validate(OrgId)(upper))
        expect(read.id).toBe(upper.toLowerCase())
      }))

    it.effect("a profile can be created, replayed, conflicted and read back", () =>
      Effect.gen(function*() {
        const profiles = yield* Profiles
        const profile = new Profile({ id: ProfileId.make(uuid()), fullName: "Ada Lovelace", orgId: OrgId.make(uuid()) })
        expect(yield* profiles.create(profile)).toEqual(profile)
        expect(yield* profiles.create(profile)).toEqual(profile)
        expect(yield* profiles.get(profile.id)).toEqual(profile)
        const moved = new Profile({ ...profile, orgId: OrgId.make(uuid()) })
        expect(yield* Effect.flip(profiles.create(moved))).toBeInstanceOf(AlreadyExists)
        const missing = ProfileId.make(uuid())
        expect(yield* Effect.flip(profiles.get(missing))).toEqual(new NotFound({ resource: "profile", id: missing }))
      }))

    it.effect("a license can be created, replayed, conflicted and read back", () =>
      Effect.gen(function*() {
        const licenses = yield* Licenses
        const license = new License({
          id: LicenseId.make(uuid()),
          userId: UserId.make(uuid()),
          start: CanonicalTimestamp.make("2023-11-16T12:00:00Z"),
          end: CanonicalTimestamp.make("2024-11-16T12:00:00Z")
        })
        expect(yield* licenses.create(license)).toEqual(license)
        expect(yield* licenses.create(license)).toEqual(license)
        expect(yield* licenses.get(license.id)).toEqual(license)
        const longer = new License({ ...license, end: CanonicalTimestamp.make("2025-11-16T12:00:00Z") })
        expect(yield* Effect.flip(licenses.create(longer))).toBeInstanceOf(AlreadyExists)
        const missing = LicenseId.make(uuid())
        expect(yield* Effect.flip(licenses.get(missing))).toEqual(new NotFound({ resource: "license", id: missing }))
      }))

    it.effect("license times given with an offset are stored as the same instant and read back in UTC", () =>
      Effect.gen(function*() {
        const licenses = yield* Licenses
        const license = yield* validate(License)({
          id: uuid(),
          userId: uuid(),
          start: "2023-11-16T13:30:00.123456+01:30",
          end: "2023-11-17T00:00:00.5-05:00"
        })
        yield* licenses.create(license)
        const read = yield* licenses.get(license.id)
        expect(read.start).toBe("2023-11-16T12:00:00.123456Z")
        expect(read.end).toBe("2023-11-17T05:00:00.5Z")
      }))

    it.effect("a replay with the same instant in another offset is the same license", () =>
      Effect.gen(function*() {
        const licenses = yield* Licenses
        const input = { id: uuid(), userId: uuid(), start: "2030-01-01T00:00:00Z", end: "2031-01-01T00:00:00Z" }
        yield* licenses.create(yield* validate(License)(input))
        const replay = yield* validate(License)({ ...input, start: "2030-01-01T02:00:00+02:00" })
        expect(Exit.isSuccess(yield* Effect.exit(licenses.create(replay)))).toBe(true)
        expect(failureOf(yield* Effect.exit(licenses.get(replay.id)))).toBeUndefined()
      }))
  })
})
