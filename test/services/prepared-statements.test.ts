import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { AlreadyExists } from "../../src/domain/Errors.js"
import { OrgId } from "../../src/domain/Ids.js"
import { OnboardingRequest } from "../../src/domain/Onboarding.js"
import { Org } from "../../src/domain/Org.js"
import { validate } from "../../src/domain/Validation.js"
import { Licenses } from "../../src/services/Licenses.js"
import { Onboarding } from "../../src/services/Onboarding.js"
import { Orgs } from "../../src/services/Orgs.js"
import { Profiles } from "../../src/services/Profiles.js"
import { uuid } from "../support/ids.js"
import { TestDatabase, testDatabaseKind } from "../support/TestDatabase.js"

/**
 * Prepared statements: `sql.unsafe` outside a transaction, the transaction's own connection inside
 * one (`Prepared.ts`), so a statement of a transaction that fails is rolled back with it.
 */
const services = Layer.mergeAll(Onboarding.Default, Orgs.Default, Profiles.Default, Licenses.Default)

describe(`prepared statements on ${testDatabaseKind}`, () => {
  layer(services.pipe(Layer.provideMerge(TestDatabase)), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("read, write, replay, conflict and list", () =>
      Effect.gen(function*() {
        const orgs = yield* Orgs
        const org = new Org({ id: OrgId.make(uuid()), name: "Public Path Inc" })
        expect(yield* orgs.create(org)).toEqual(org)
        expect(yield* orgs.create(org)).toEqual(org)
        const conflict = yield* Effect.exit(orgs.create(new Org({ id: org.id, name: "Other" })))
        expect(conflict).toEqual(Exit.fail(new AlreadyExists({ resource: "org", id: org.id })))
        expect(yield* orgs.get(org.id)).toEqual(org)
        const page = yield* orgs.list({ size: 1000, after: undefined, filter: undefined, tokenAfter: () => "next" })
        expect(page.items.map((each) => each.id)).toContain(org.id)
      }))

    it.effect("the workflow commits its org, profile, license and run in one transaction", () =>
      Effect.gen(function*() {
        const request = yield* validate(OnboardingRequest)({
          license: { start: "2023-11-16T12:00:00Z", end: "2024-11-16T12:00:00Z" },
          org: { name: "Acme" },
          profile: { fullName: "Ada Lovelace" }
        })
        const result = yield* (yield* Onboarding).create(request)
        expect((yield* (yield* Orgs).get(result.orgId)).name).toBe("Acme")
        expect((yield* (yield* Profiles).get(result.profileId)).orgId).toBe(result.orgId)
        expect((yield* (yield* Licenses).get(result.licenseId)).userId).toBe(result.profileId)
        expect((yield* (yield* Onboarding).getRun(result.workflowId)).status).toBe("completed")
      }))

    it.effect("a write inside a transaction that fails leaves no row behind", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const orgs = yield* Orgs
        const org = new Org({ id: OrgId.make(uuid()), name: "Rolled Back Inc" })
        const failed = yield* Effect.exit(sql.withTransaction(Effect.zipRight(orgs.create(org), Effect.fail("stop"))))
        expect(failed).toEqual(Exit.fail("stop"))
        expect((yield* Effect.flip(orgs.get(org.id)))._tag).toBe("NotFound")
      }))
  })
})
