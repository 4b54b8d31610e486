import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { furtherColumns, furtherFields, labelOf } from "../../src/console/FurtherFields.js"
import { Profile } from "../../src/domain/Profile.js"

/**
 * The console lays out the fields it knows (links, dates) and shows any other field of a record
 * as it comes (src/console/FurtherFields.ts): a field added to a record's declaration reaches the
 * console's record page and list without a console edit. Here the record is the REST answer of a
 * Profile that has gained a field.
 */
describe("the console's further fields", () => {
  const WithNickname = Schema.Struct({ ...Profile.fields, nickname: Schema.optional(Schema.String) })
  const encoded = Schema.encodeSync(WithNickname)(Schema.decodeUnknownSync(WithNickname)({
    id: "0b7e9d4c-5c1a-4f0e-9a53-1b2f3c4d5e6f",
    fullName: "Ada Lovelace",
    orgId: "6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b",
    nickname: "Addie"
  }))

  it("a record page shows a field it does not lay out, labelled from its name", () => {
    expect(furtherFields(encoded, ["fullName", "orgId", "id"])).toEqual([["Nickname", "Addie"]])
  })

  it("a list has a column for it, empty where a row lacks it", () => {
    const { nickname: _, ...without } = encoded
    const columns = furtherColumns([without, encoded], ["fullName", "orgId", "id"])
    expect(columns.map((column) => column.heading)).toEqual(["Nickname"])
    expect([without, encoded].map((row) => columns[0]?.cell(row))).toEqual(["", "Addie"])
  })

  it("a record with none but the fields its page lays out shows nothing more", () => {
    const profile = Schema.encodeSync(Profile)(Schema.decodeUnknownSync(Profile)({ id: encoded.id, fullName: encoded.fullName, orgId: encoded.orgId }))
    expect(furtherFields(profile, ["fullName", "orgId", "id"])).toEqual([])
  })

  it("labels read as words", () => {
    expect([labelOf("nickname"), labelOf("startAt"), labelOf("seat_count")]).toEqual(["Nickname", "Start at", "Seat count"])
  })
})
