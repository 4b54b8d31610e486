import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { createHash } from "node:crypto"
import { InvalidArgument } from "../../src/domain/Errors.js"
import { License } from "../../src/domain/License.js"
import { OnboardingLicense, OnboardingRequest } from "../../src/domain/Onboarding.js"
import { fingerprint } from "../../src/services/Onboarding.js"
import { Org } from "../../src/domain/Org.js"
import { Profile } from "../../src/domain/Profile.js"
import { fromSecondsNanos, Timestamp, toSecondsNanos } from "../../src/domain/Timestamp.js"
import { validate } from "../../src/domain/Validation.js"

const id = "0b7e9d4c-5c1a-4f0e-9a53-1b2f3c4d5e6f"
const license = { id, userId: id, start: "2023-11-16T12:00:00Z", end: "2024-11-16T12:00:00Z" }
const workflow = {
  license: { start: "2023-11-16T12:00:00Z", end: "2024-11-16T12:00:00Z" },
  org: { name: "Acme" },
  profile: { fullName: "Ada Lovelace" }
}

const refusal = <A, I>(schema: Schema.Schema<A, I>, input: unknown) => Effect.flip(validate(schema)(input))
const messageFor = <A, I>(schema: Schema.Schema<A, I>, input: unknown) =>
  Effect.map(refusal(schema, input), (e) => e.message)

describe("validation", () => {
  describe("ids", () => {
    for (const bad of ["not-a-uuid", "", "0b7e9d4c5c1a4f0e9a531b2f3c4d5e6f", `${id}0`, ` ${id}`, "0b7e9d4c-5c1a-4f0e-9a53-1b2f3c4d5e6g"]) {
      it.effect(`"${bad}" is not a UUID`, () =>
        Effect.gen(function*() {
          const error = yield* refusal(Org, { id: bad, name: "Acme" })
          expect(error).toBeInstanceOf(InvalidArgument)
          expect(error.message).toBe("id: must be a UUID (8-4-4-4-12 hex digits)")
          expect(error.violations.map((v) => v.field)).toEqual(["id"])
        }))
    }

    it.effect("an upper-case UUID is accepted and normalised to lowercase", () =>
      Effect.map(validate(Org)({ id: id.toUpperCase(), name: "Acme" }), (org) => expect(org.id).toBe(id)))

    it.effect("a profile's orgId and a license's userId must be UUIDs too", () =>
      Effect.gen(function*() {
        expect(yield* messageFor(Profile, { id, fullName: "Ada", orgId: "acme" })).toBe(
          "orgId: must be a UUID (8-4-4-4-12 hex digits)"
        )
        expect(yield* messageFor(License, { ...license, userId: "7" })).toBe(
          "userId: must be a UUID (8-4-4-4-12 hex digits)"
        )
      }))
  })

  describe("names", () => {
    for (const blank of ["", " ", "\t\n "]) {
      it.effect(`${JSON.stringify(blank)} is blank`, () =>
        Effect.map(messageFor(Org, { id, name: blank }), (m) => expect(m).toBe("name: must not be blank")))
    }

    it.effect("200 characters are accepted and 201 refused", () =>
      Effect.gen(function*() {
        expect((yield* validate(Org)({ id, name: "x".repeat(200) })).name).toHaveLength(200)
        expect(yield* messageFor(Org, { id, name: "x".repeat(201) })).toBe("name: must be at most 200 characters")
        expect(yield* messageFor(Profile, { id, orgId: id, fullName: "y".repeat(201) })).toBe(
          "fullName: must be at most 200 characters"
        )
      }))

    it.effect("characters are counted as characters, not UTF-16 units", () =>
      Effect.map(validate(Org)({ id, name: "🦄".repeat(200) }), (org) => expect(org.name).toBe("🦄".repeat(200))))

    it.effect("names are kept verbatim, markup and SQL included", () =>
      Effect.gen(function*() {
        const name = "  <script>alert(1)</script>'; drop table orgs; --  "
        expect((yield* validate(Org)({ id, name })).name).toBe(name)
      }))

    const controls = {
      "a NUL": "a\u0000b",
      "a tab": "Acme\tCorp",
      "a newline": "Acme\nCorp",
      "DEL": "Acme\u007f",
      "U+0085 (NEL, a C1 control)": "Acme\u0085Corp",
      "U+009B (CSI, a C1 control)": "Acme\u009b31m"
    }
    for (const [what, name] of Object.entries(controls)) {
      it.effect(`${what} is refused as a control character`, () =>
        Effect.gen(function*() {
          expect(yield* messageFor(Org, { id, name })).toBe("name: must not contain control characters")
          expect(yield* messageFor(Profile, { id, orgId: id, fullName: name })).toBe(
            "fullName: must not contain control characters"
          )
        }))
    }

    const bidi = "must not contain bidirectional embedding, override or isolate characters (U+202A-U+202E, U+2066-U+2069)"
    for (const code of [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]) {
      const char = String.fromCodePoint(code)
      it.effect(`U+${code.toString(16).toUpperCase()} (a bidi embedding, override or isolate) is refused`, () =>
        Effect.map(messageFor(Org, { id, name: `Acme${char}moc.evil` }), (m) => expect(m).toBe(`name: ${bidi}`)))
    }

    const invisible = {
      "U+200B zero-width space": "\u200b",
      "zero-width joiners and non-joiners": "\u200c\u200d\u200c",
      "U+2060 word joiner and U+FEFF": "\u2060\ufeff\u2060",
      "a soft hyphen": "\u00ad",
      "Hangul fillers": "\u3164\u115f\uffa0",
      "the blank Braille cell": "\u2800\u2800",
      "variation selectors": "\ufe0f\u{e0100}",
      "direction marks only": "\u200e\u200f",
      "zero-width space between spaces": " \u200b "
    }
    for (const [what, name] of Object.entries(invisible)) {
      it.effect(`a name of ${what} holds no visible character`, () =>
        Effect.gen(function*() {
          expect(yield* messageFor(Org, { id, name })).toBe("name: must contain a visible character")
          expect(yield* messageFor(OnboardingRequest, { ...workflow, profile: { fullName: name } })).toBe(
            "profile.fullName: must contain a visible character"
          )
        }))
    }

    it.effect("names in every script, with marks, joiners and direction marks among visible characters, are accepted", () =>
      Effect.gen(function*() {
        for (
          const name of [
            "Ünïcödé ñ",
            "e\u0301",
            "日本語の名前",
            "مرحبا\u200f بالعالم",
            "👩\u200d👩\u200d👧",
            "Ꙭ",
            "Acme\u00a0Corp",
            "x\u200b"
          ]
        ) {
          expect((yield* validate(Org)({ id, name })).name).toBe(name)
        }
      }))

    it.effect("a name of the wrong type names the field", () =>
      Effect.map(messageFor(Org, { id, name: 5 }), (m) => expect(m).toBe("name: must be a string")))

    it.effect("a missing name is reported as missing", () =>
      Effect.map(messageFor(Org, { id }), (m) => expect(m).toBe("name: is missing")))
  })

  describe("license period", () => {
    it.effect("end equal to start is refused", () =>
      Effect.map(messageFor(License, { ...license, end: license.start }), (m) => expect(m).toBe("end: must be after start")))

    it.effect("end before start is refused, also when only the offset makes it earlier", () =>
      Effect.gen(function*() {
        expect(yield* messageFor(License, { ...license, end: "2020-01-01T00:00:00Z" })).toBe("end: must be after start")
        const sameWallClock = { ...license, end: "2023-11-16T12:30:00+01:00" }
        expect(yield* messageFor(License, sameWallClock)).toBe("end: must be after start")
      }))

    it.effect("one microsecond is enough", () =>
      Effect.map(
        validate(License)({ ...license, end: "2023-11-16T12:00:00.000001Z" }),
        (l) => expect(l.end).toBe("2023-11-16T12:00:00.000001Z")
      ))

    it.effect("start and end are required", () =>
      Effect.map(messageFor(License, { id, userId: id }), (m) => expect(m).toBe("start: is missing; end: is missing")))
  })

  describe("timestamps", () => {
    const canonical = Schema.decodeUnknownSync(Timestamp)
    it("offsets are normalised to UTC Z, fractions only when non-zero", () => {
      expect(canonical("2023-11-16T13:00:00+01:00")).toBe("2023-11-16T12:00:00Z")
      expect(canonical("2023-11-16T07:00:00-05:00")).toBe("2023-11-16T12:00:00Z")
      expect(canonical("2023-11-16t12:00:00z")).toBe("2023-11-16T12:00:00Z")
      expect(canonical("2023-11-16T12:00:00.000Z")).toBe("2023-11-16T12:00:00Z")
      expect(canonical("2023-11-16T12:00:00.250Z")).toBe("2023-11-16T12:00:00.25Z")
      expect(canonical("2023-11-16T12:00:00.123456789Z")).toBe("2023-11-16T12:00:00.123456Z")
      expect(canonical("2024-01-01T00:30:00+01:00")).toBe("2023-12-31T23:30:00Z")
      expect(canonical("0001-01-01T00:00:00Z")).toBe("0001-01-01T00:00:00Z")
      expect(canonical("1969-12-31T23:59:59.5Z")).toBe("1969-12-31T23:59:59.5Z")
    })

    for (
      const bad of [
        "2023-11-16",
        "2023-11-16T12:00:00",
        "2023-13-01T00:00:00Z",
        "2023-02-30T00:00:00Z",
        "2023-11-16T24:00:00Z",
        "2023-11-16T12:60:00Z",
        "2023-11-16T12:00:00+25:00",
        "0001-01-01T00:00:00+00:01",
        "yesterday",
        "1700000000"
      ]
    ) {
      it.effect(`"${bad}" is not a timestamp`, () =>
        Effect.map(
          messageFor(License, { ...license, start: bad }),
          (m) => expect(m).toMatch(/^start: must be an RFC 3339 timestamp/)
        ))
    }

    it("protobuf seconds and nanos convert both ways, before 1970 too", () => {
      expect(fromSecondsNanos(1_700_136_000n, 0)).toBe("2023-11-16T12:00:00Z")
      expect(fromSecondsNanos(-1n, 500_000_000)).toBe("1969-12-31T23:59:59.5Z")
      expect(toSecondsNanos(canonical("1969-12-31T23:59:59.5Z"))).toEqual({ seconds: -1n, nanos: 500_000_000 })
      expect(toSecondsNanos(canonical("2023-11-16T12:00:00.000001Z"))).toEqual({ seconds: 1_700_136_000n, nanos: 1000 })
      expect(fromSecondsNanos(253_402_300_800n, 0)).toBeUndefined()
      expect(fromSecondsNanos(0n, 1_000_000_000)).toBeUndefined()
    })
  })

  describe("workflow request", () => {
    it.effect("a complete request is accepted; the workflow id is optional", () =>
      Effect.gen(function*() {
        expect((yield* validate(OnboardingRequest)(workflow)).workflowId).toBeUndefined()
        const withId = yield* validate(OnboardingRequest)({ ...workflow, workflowOptions: { workflowId: id.toUpperCase() } })
        expect(withId.workflowId).toBe(id)
      }))

    it.effect("errors name the nested field path", () =>
      Effect.gen(function*() {
        expect(yield* messageFor(OnboardingRequest, { ...workflow, license: { ...workflow.license, end: workflow.license.start } }))
          .toBe("license.end: must be after license.start")
        expect(yield* messageFor(OnboardingRequest, { ...workflow, org: {} })).toBe("org.name: is missing")
        expect(yield* messageFor(OnboardingRequest, { ...workflow, profile: { fullName: " " } })).toBe(
          "profile.fullName: must not be blank"
        )
        expect(yield* messageFor(OnboardingRequest, { ...workflow, workflowOptions: { workflowId: "run-1" } })).toBe(
          "workflowOptions.workflowId: must be a UUID (8-4-4-4-12 hex digits)"
        )
      }))

    it.effect("every broken rule is reported at once", () =>
      Effect.gen(function*() {
        const error = yield* refusal(OnboardingRequest, { license: { start: "soon" }, org: { name: "" } })
        expect(error.violations.map((v) => v.field)).toEqual(["license.start", "license.end", "org.name", "profile"])
      }))

    it.effect("the same request spelled with another offset has the same fingerprint", () =>
      Effect.gen(function*() {
        const a = yield* validate(OnboardingRequest)(workflow)
        const b = yield* validate(OnboardingRequest)({ ...workflow, license: { ...workflow.license, start: "2023-11-16T13:00:00+01:00" } })
        const c = yield* validate(OnboardingRequest)({ ...workflow, org: { name: "Acme Ltd" } })
        expect(fingerprint(a)).toBe(fingerprint(b))
        expect(fingerprint(a)).not.toBe(fingerprint(c))
      }))

    it.effect("a run stored before the workflow's parts were derived keeps its fingerprint (a retry after an upgrade still matches)", () =>
      Effect.gen(function*() {
        const request = yield* validate(OnboardingRequest)(workflow)
        // What the fingerprint was over before: the four fields, in this order.
        const stored = createHash("sha256")
          .update(JSON.stringify(["Acme", "Ada Lovelace", request.license.start, request.license.end]))
          .digest("hex")
        expect(fingerprint(request)).toBe(stored)
      }))

    it.effect("the workflow's parts are the records' fields less the ids and links it makes: each rule and description comes with them", () =>
      Effect.sync(() => {
        const fields = (schema: { readonly fields: object }) => Object.keys(schema.fields).sort()
        const parts = OnboardingRequest.fields
        expect(fields(parts.org)).toEqual(fields(Org).filter((f) => f !== "id"))
        expect(fields(parts.profile)).toEqual(fields(Profile).filter((f) => !["id", "orgId"].includes(f)))
        expect(fields(OnboardingLicense.from)).toEqual(fields(License).filter((f) => !["id", "userId"].includes(f)))
        expect(parts.profile.fields.fullName).toBe(Profile.fields.fullName)
      }))
  })
})
