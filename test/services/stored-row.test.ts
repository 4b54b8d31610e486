import { describe, expect, it, layer } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Equal, Layer, Schema } from "effect"
import { LicenseId, OrgId, ProfileId, UserId, WorkflowId } from "../../src/domain/Ids.js"
import { License } from "../../src/domain/License.js"
import { Org } from "../../src/domain/Org.js"
import { Profile } from "../../src/domain/Profile.js"
import { CanonicalTimestamp } from "../../src/domain/Timestamp.js"
import { validate } from "../../src/domain/Validation.js"
import { Licenses } from "../../src/services/Licenses.js"
import { Orgs } from "../../src/services/Orgs.js"
import { Profiles } from "../../src/services/Profiles.js"
import { domainTable } from "../../src/services/records/SqlTable.js"
import { storedRow } from "../../src/services/records/StoredRow.js"
import { TestDatabase, testDatabaseKind } from "../support/TestDatabase.js"
import { uuid } from "../support/ids.js"

const services = Layer.mergeAll(Orgs.Default, Profiles.Default, Licenses.Default)

/**
 * A stored row is read without the domain's checks (StoredRow.ts) only because the database gives
 * it back in the domain's own form. Each resource's rows, as the services select them, read both
 * ways: the value constructed from the row must be the value its decode gives, and encoding it
 * must give the row back (less its null columns: optional fields left out). A column the database renders otherwise (a time not in canonical UTC
 * text, an id in capitals) fails here.
 */
describe(`stored rows on ${testDatabaseKind}`, () => {
  layer(services.pipe(Layer.provideMerge(TestDatabase)), { timeout: 60_000, excludeTestServices: true })((it) => {
    const readBothWays = <A, I>(Result: Schema.Schema<A, I>, selectList: string, table: string, id: string) =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql.unsafe<Record<string, unknown>>(`select ${selectList} from ${table} where id = $1`, [id])
        const trusted = storedRow(Result)(row)
        const decoded = Schema.decodeUnknownSync(Result)(row)
        expect(Equal.equals(trusted, decoded), JSON.stringify(row)).toBe(true)
        expect(trusted).toEqual(decoded)
        // A null column is an optional field left out (a column added after the row was written).
        expect(Schema.encodeSync(Result)(trusted)).toEqual(Object.fromEntries(Object.entries(row ?? {}).filter(([, value]) => value !== null)))
      })

    it.effect("orgs, profiles and licenses: the value made from the row is the value decoded from it", () =>
      Effect.gen(function*() {
        const org = new Org({ id: OrgId.make(uuid()), name: "  Zoë & Søn — 株式会社 🚀 " })
        yield* (yield* Orgs).create(org)
        yield* readBothWays(Org, domainTable("orgs", Org).selectList, "orgs", org.id)

        const profile = new Profile({ id: ProfileId.make(uuid()), fullName: "Ada\u00a0Lovelace", orgId: org.id })
        yield* (yield* Profiles).create(profile)
        yield* readBothWays(Profile, domainTable("profiles", Profile).selectList, "profiles", profile.id)

        for (
          const [start, end] of [
            ["2023-11-16T13:30:00.123456+01:30", "2023-11-16T12:00:01Z"],
            ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999Z"],
            ["2024-02-29T23:59:59.5-00:30", "2024-03-01T00:30:00.000001+00:00"]
          ] as const
        ) {
          const license = yield* validate(License)({ id: LicenseId.make(uuid()), userId: UserId.make(profile.id), start, end })
          yield* (yield* Licenses).create(license)
          yield* readBothWays(License, domainTable("licenses", License, { start: "start_at", end: "end_at" }).selectList, "licenses", license.id)
          expect(CanonicalTimestamp.make(license.start)).toBe(license.start)
        }
      }))
  })
})

describe("keys", () => {
  // A read binds its key as it stands (`findStored` in Records.ts), as an insert binds a value's
  // fields: each id, decoded from any case, must encode to itself.
  it("an id that passed the rules is its own encoded form", () => {
    const encodesToItself = <A extends string>(Id: Schema.Schema<A, string>) => {
      for (const given of [uuid(), "0B0E4F0E-8F57-4D57-9A43-0F0A9D1B1C11"]) {
        const id = Schema.decodeSync(Id)(given)
        expect(Schema.encodeSync(Id)(id)).toBe(id)
      }
    }
    encodesToItself(OrgId)
    encodesToItself(ProfileId)
    encodesToItself(UserId)
    encodesToItself(LicenseId)
    encodesToItself(WorkflowId)
  })
})

describe("rows of other schemas", () => {
  const Row = Schema.Struct({ id: Schema.UUID, seats: Schema.optional(Schema.Int) })
  class WithOptional extends Schema.Class<WithOptional>("WithOptional")({ id: Schema.UUID, seats: Schema.optional(Schema.Int) }) {}

  it("a struct, or a class with an optional field, is decoded: a row that does not decode is a defect", () => {
    expect(storedRow(Row)({ id: "0b0e4f0e-8f57-4d57-9a43-0f0a9d1b1c11" })).toEqual({ id: "0b0e4f0e-8f57-4d57-9a43-0f0a9d1b1c11" })
    expect(() => storedRow(Row)({ id: "not a uuid" })).toThrow()
    expect(() => storedRow(Row)({})).toThrow()
    expect(() => storedRow(WithOptional)({ id: "0b0e4f0e-8f57-4d57-9a43-0f0a9d1b1c11", seats: null })).toThrow()
  })

  it("a class of required fields is made from the row's fields alone, its rules not checked again", () => {
    const org = storedRow(Org)({ id: "0b0e4f0e-8f57-4d57-9a43-0f0a9d1b1c11", name: "Acme", createdAt: "2026-01-01T00:00:00Z" })
    expect(org).toBeInstanceOf(Org)
    expect(Object.keys(org)).toEqual(["id", "name"])
    // A name changed by hand to one no write accepts is read as it stands, and so is a period
    // that ends before it starts (which the table's check would refuse anyway).
    expect(storedRow(Org)({ id: "0b0e4f0e-8f57-4d57-9a43-0f0a9d1b1c11", name: "" }).name).toBe("")
    const period = { start: "2027-01-01T00:00:00Z", end: "2026-01-01T00:00:00Z" }
    expect(storedRow(License)({ id: "0b0e4f0e-8f57-4d57-9a43-0f0a9d1b1c11", userId: "0b0e4f0e-8f57-4d57-9a43-0f0a9d1b1c12", ...period }))
      .toMatchObject(period)
  })
})
