import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { License } from "../../src/domain/License.js"
import { Profile } from "../../src/domain/Profile.js"
import { Timestamp } from "../../src/domain/Timestamp.js"
import { domainTable, sqlTable } from "../../src/services/records/SqlTable.js"

describe("a table derived from its domain class", () => {
  it("writes the text the literal declaration wrote: snake_case columns, renamed ones, timestamps read and written as such", () => {
    // License's fields as the literal declaration knew them (License itself may have gained some since).
    const { end, id, start, userId } = License.fields
    const derived = domainTable("licenses", { fields: { id, userId, start, end } }, { start: "start_at", end: "end_at" })
    const literal = sqlTable("licenses", {
      id: "id",
      userId: "user_id",
      start: { column: "start_at", timestamp: true },
      end: { column: "end_at", timestamp: true }
    })
    expect(derived.selectList).toBe(literal.selectList)
    expect(derived.insertUnlessPresent("id")).toBe(literal.insertUnlessPresent("id"))
    // Profile's fields as the literal declaration knew them, likewise.
    const { fullName, orgId } = Profile.fields
    expect(domainTable("profiles", { fields: { id: Profile.fields.id, fullName, orgId } }).insertUnlessPresent("id"))
      .toBe("insert into profiles (id, full_name, org_id) values ($1, $2, $3) on conflict (id) do nothing")
  })

  it("takes a field added to the class, optional or not, as a column with nothing else written", () => {
    const { end, id, start, userId } = License.fields
    const Widened = Schema.Struct({
      id,
      userId,
      start,
      end,
      seats: Schema.optional(Schema.Int),
      renewedAt: Schema.optional(Timestamp)
    })
    const table = domainTable("licenses", Widened, { start: "start_at", end: "end_at" })
    expect(table.insertUnlessPresent("id"))
      .toBe("insert into licenses (id, user_id, start_at, end_at, seats, renewed_at) values ($1, $2, $3::timestamptz, $4::timestamptz, $5, $6::timestamptz) on conflict (id) do nothing")
    expect(table.values({ id: "i", userId: "u", start: "s", end: "e" })).toEqual(["i", "u", "s", "e", null, null])
  })

  it("refuses a field whose column would not be a plain SQL name", () => {
    expect(() => domainTable("t", { fields: { "x; drop table orgs": Schema.String } })).toThrow(/not a plain SQL column name/)
  })
})
