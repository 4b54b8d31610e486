import { describe, expect, it } from "@effect/vitest"
import { placed, refusedInWords, violationsIn } from "../../src/console/Violations.js"
import { onboardingForm } from "../../src/transports/pages/OnboardingForm.js"

/**
 * The console places a refusal's broken rules from its details (google.rpc.BadRequest's field
 * violations, AIP-193), never from its message: here bodies as REST writes them, parsed as the
 * browser parses them.
 */
const refusal = (fieldViolations: ReadonlyArray<Record<string, string>>) =>
  JSON.parse(JSON.stringify({
    code: 3,
    message: "not read by the console",
    details: [
      { "@type": "type.googleapis.com/google.rpc.ResourceInfo", resourceType: "org", resourceName: "x" },
      { "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations }
    ]
  })) as { details: ReadonlyArray<unknown> }

describe("the console's reading of a refusal's violations", () => {
  it("reads each field violation of the BadRequest entry, a missing field as the request's own", () => {
    const { details } = refusal([{ field: "profile.fullName", description: "at most 200 characters" }, { description: "no field" }])
    expect(violationsIn(details)).toEqual([
      { field: "profile.fullName", description: "at most 200 characters" },
      { field: "", description: "no field" }
    ])
    expect(violationsIn([])).toEqual([])
    expect(violationsIn([{ "@type": "type.googleapis.com/google.rpc.ResourceInfo" }, "text", null])).toEqual([])
  })

  it("puts each under its field, named by the field's label, a path in its words spelled as that field's clause", () => {
    const { details } = refusal([
      { field: "license.end", description: "must be after license.start" },
      { field: "org.name", description: "must not be blank" },
      { field: "org.name", description: "at most 200 characters" },
      { field: "profile.fullName", description: "at most 200 characters" }
    ])
    const { fields, rest } = placed(violationsIn(details), onboardingForm)
    expect(Object.fromEntries(fields)).toEqual({
      "license.end": "When the license ends must be after when the license starts",
      "org.name": "The org's display name must not be blank; at most 200 characters",
      "profile.fullName": "The person's full name at most 200 characters"
    })
    expect(rest).toEqual([])
  })

  it("what names no field of the form goes to the form's general place", () => {
    const { details } = refusal([
      { field: "", description: "the request is empty" },
      { field: "profile.nickname", description: "is not a known field" },
      { field: "license.startedAt", description: "not license.start's" }
    ])
    const { fields, rest } = placed(violationsIn(details), onboardingForm)
    expect(fields.size).toBe(0)
    expect(rest).toEqual(["the request is empty", "profile.nickname: is not a known field", "license.startedAt: not when the license starts's"])
  })

  it("a read refused (an id from the address) is said from its violations, the field's name as words", () => {
    const { details } = refusal([{ field: "id", description: "must be a UUID (8-4-4-4-12 hex digits)" }])
    expect(refusedInWords(details, "id: must be a UUID (8-4-4-4-12 hex digits)")).toBe("Id must be a UUID (8-4-4-4-12 hex digits).")
    // Without violations (a refusal of the edge's), its message is all there is.
    expect(refusedInWords([], "the body is not JSON")).toBe("the body is not JSON")
  })
})
