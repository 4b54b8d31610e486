import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema, SchemaAST } from "effect"
import { License } from "../../src/domain/License.js"
import { OnboardingLicense, OnboardingOrg, OnboardingProfile, OnboardingRequest, OnboardingResult } from "../../src/domain/Onboarding.js"
import { Org } from "../../src/domain/Org.js"
import { Profile } from "../../src/domain/Profile.js"
import { validate } from "../../src/domain/Validation.js"
import { InMemoryServices } from "../../src/services/InMemoryServices.js"
import { Licenses } from "../../src/services/Licenses.js"
import { Onboarding } from "../../src/services/Onboarding.js"
import { Orgs } from "../../src/services/Orgs.js"
import { Profiles } from "../../src/services/Profiles.js"

// Onboarding.ts makes its records without their constructors' checks, because the request's parts
// were decoded with the records' rules. These hold that to be so.

/** How many rules across fields a schema has on top of its fields (filters over the whole struct). */
const rulesAcrossFields = (ast: SchemaAST.AST): number => (SchemaAST.isRefinement(ast) ? 1 + rulesAcrossFields(ast.from) : 0)

/** A class's fields' struct as its constructor checks it: the encoded side of the class's transformation. */
const classStruct = (schema: { readonly ast: SchemaAST.AST }) => (schema.ast as SchemaAST.Transformation).from

/** A struct's fields, under any filters over it. */
const fieldsOf = (schema: object): Record<string, unknown> =>
  "fields" in schema ? (schema.fields as Record<string, unknown>) : fieldsOf((schema as { readonly from: object }).from)

const parts = [
  { record: "Org", Class: Org, part: OnboardingOrg, filled: ["id"] },
  { record: "Profile", Class: Profile, part: OnboardingProfile, filled: ["id", "orgId"] },
  { record: "License", Class: License, part: OnboardingLicense, filled: ["id", "userId"] }
] as const

describe("the records the workflow makes", () => {
  for (const { Class, filled, part, record } of parts) {
    it(`${record}: the request's part has every field of the record but those the workflow fills, the same schemas, and as many rules across fields`, () => {
      const partFields = fieldsOf(part)
      const classFields = fieldsOf(Class)
      expect(Object.keys(partFields).sort()).toEqual(Object.keys(classFields).filter((name) => !filled.includes(name as never)).sort())
      for (const name of Object.keys(partFields)) expect(partFields[name], name).toBe(classFields[name])
      expect(
        rulesAcrossFields(part.ast),
        `${record} has rules across its fields that the workflow's ${record} part does not: add them to it (Onboarding.ts builds records without their checks)`
      ).toBe(rulesAcrossFields(classStruct(Class)))
    })
  }

  it("upstream: a record's constructor checks against a new AST each time (an id is refined over a transformation), so the validator Effect caches by AST is built anew on every construction", () => {
    // Should this fail, Effect caches it now, and the checks Onboarding.ts skips may cost little.
    expect(SchemaAST.typeAST(classStruct(Org))).not.toBe(SchemaAST.typeAST(classStruct(Org)))
  })

  it.effect("pass their classes' own checks, and so does the run", () =>
    Effect.gen(function*() {
      const request = yield* validate(OnboardingRequest)({
        license: { start: "2023-11-16T12:00:00Z", end: "2024-11-16T12:00:00+01:00" },
        org: { name: "Acme" },
        profile: { fullName: "Ada Lovelace" }
      })
      const run = yield* (yield* Onboarding).create(request)
      const checked = <A, I>(schema: Schema.Schema<A, I>, value: A) => expect(Schema.decodeUnknownSync(schema)(Schema.encodeSync(schema)(value))).toEqual(value)
      checked(OnboardingResult, run)
      checked(Org, yield* (yield* Orgs).get(run.orgId))
      checked(Profile, yield* (yield* Profiles).get(run.profileId))
      checked(License, yield* (yield* Licenses).get(run.licenseId))
    }).pipe(Effect.provide(InMemoryServices)))
})
