import type * as HttpApi from "@effect/platform/HttpApi"
import type * as HttpBody from "@effect/platform/HttpBody"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { License } from "../../src/domain/License.js"
import { Org } from "../../src/domain/Org.js"
import { Profile } from "../../src/domain/Profile.js"
import { validate } from "../../src/domain/Validation.js"
import { LicenseHttpApi, OrgHttpApi, ProfileHttpApi, WorkflowHttpApi } from "../../src/contract/HttpApis.js"
import { OnboardingResult } from "../../src/domain/Onboarding.js"
import { endpointOf, jsonReply } from "../../src/transports/rest/RestHandlers.js"
import { uuid } from "../support/ids.js"

/**
 * A resource's REST reply is written as the JSON of its record (`jsonReply` in RestHandlers.ts), not encoded by the
 * endpoint's success schema: for every endpoint that answers so, both must give the same body (the workflow's result too).
 * The records are decoded from the inputs a caller may send (any offset, fractions, names beyond
 * ASCII), so they hold what the services hold.
 */
const resources = [
  {
    api: OrgHttpApi,
    group: "orgs",
    key: "org",
    records: Effect.all([
      validate(Org)({ id: uuid(), name: "Acme" }),
      validate(Org)({ id: uuid(), name: "  Zoë & Søn — 株式会社 🚀 \"quoted\" \\ " })
    ])
  },
  {
    api: ProfileHttpApi,
    group: "profiles",
    key: "profile",
    records: Effect.all([validate(Profile)({ id: uuid(), fullName: "Ada\u00a0Lovelace", orgId: uuid() })])
  },
  {
    api: LicenseHttpApi,
    group: "licenses",
    key: "license",
    records: Effect.all([
      validate(License)({ id: uuid(), userId: uuid(), start: "2023-11-16T13:30:00.123456+01:30", end: "2023-11-16T12:00:01Z" }),
      validate(License)({ id: uuid(), userId: uuid(), start: "0001-01-01T00:00:00Z", end: "9999-12-31T23:59:59.999999Z" }),
      validate(License)({ id: uuid(), userId: uuid(), start: "2024-02-29T23:59:59.5-00:30", end: "2024-03-01T00:30:00.000001+00:00" })
    ])
  }
] as const

/** The JSON a reply carries, read as a caller reads it: its text, at status 200, as long as its Content-Length says. */
const written = (response: HttpServerResponse.HttpServerResponse): unknown => {
  const text = (response.body as HttpBody.Raw).body as string
  expect(response.status).toBe(200)
  expect(response.headers["content-type"]).toBe("application/json")
  expect(response.headers["content-length"]).toBe(String(new TextEncoder().encode(text).length))
  return JSON.parse(text)
}

describe("a resource's REST reply written as its record's JSON", () => {
  for (const { api, group, key, records } of resources) {
    const Key = `${key[0]!.toUpperCase()}${key.slice(1)}`
    for (const name of [`get${Key}`, `create${Key}`, `put${Key}`]) {
      it.effect(`${name}: the body its success schema encodes, at the status it declares`, () =>
        Effect.gen(function*() {
          const endpoint = endpointOf(api as HttpApi.HttpApi.Any, group, name)
          expect(HttpApiSchema.getStatusSuccess(endpoint.successSchema)).toBe(200)
          const reply = jsonReply(endpoint, key)
          for (const record of yield* records) {
            expect(written(reply(record))).toStrictEqual(Schema.encodeSync(endpoint.successSchema as Schema.Schema<unknown, unknown>)({ [key]: record }))
          }
        }))
    }
  }

  it.effect("createOnboardingWorkflow: the body its success schema encodes, at the status it declares", () =>
    Effect.gen(function*() {
      const endpoint = endpointOf(WorkflowHttpApi as HttpApi.HttpApi.Any, "workflows", "createOnboardingWorkflow")
      expect(HttpApiSchema.getStatusSuccess(endpoint.successSchema)).toBe(200)
      // Upper-case ids as a caller may send a workflow id: the result holds them as decoded.
      const result = yield* validate(OnboardingResult)({
        workflowId: uuid().toUpperCase(),
        orgId: uuid(),
        profileId: uuid(),
        licenseId: uuid()
      })
      expect(written(jsonReply(endpoint)(result))).toStrictEqual(Schema.encodeSync(endpoint.successSchema as Schema.Schema<unknown, unknown>)(result))
    }))
})
