import { describe, expect, it } from "@effect/vitest"
import { Effect, type Schema } from "effect"
import { ListLicensesRequest } from "../../src/domain/License.js"
import { ListOnboardingWorkflowsRequest } from "../../src/domain/Onboarding.js"
import { ListOrgsRequest } from "../../src/domain/Org.js"
import { newestFirst, pageOf, type Position } from "../../src/domain/Page.js"
import { ListProfilesRequest } from "../../src/domain/Profile.js"
import { CanonicalTimestamp } from "../../src/domain/Timestamp.js"
import { validate } from "../../src/domain/Validation.js"

const id = "0b7e9d4c-5c1a-4f0e-9a53-1b2f3c4d5e6f"
const other = "1b7e9d4c-5c1a-4f0e-9a53-1b2f3c4d5e6f"
const position = (createdAt: string, positionId = id): Position => ({ createdAt: CanonicalTimestamp.make(createdAt), id: positionId })

const messageFor = <A, I>(schema: Schema.Schema<A, I>, input: unknown) =>
  Effect.map(Effect.flip(validate(schema)(input)), (e) => e.message)

/** The token a first page of `size` rows hands out, for the list `request` asks. */
const tokenAfterFirst = <R extends { readonly query: { readonly tokenAfter: (p: Position) => string } }>(request: R) =>
  request.query.tokenAfter(position("2024-01-01T00:00:00Z"))

describe("page requests", () => {
  it.effect("an absent or zero size means 20; 1 to 100 are taken as asked", () =>
    Effect.gen(function*() {
      expect((yield* validate(ListOrgsRequest)({})).query.size).toBe(20)
      expect((yield* validate(ListOrgsRequest)({ pageSize: 0 })).query.size).toBe(20)
      expect((yield* validate(ListOrgsRequest)({ pageSize: null, pageToken: null })).query).toMatchObject({ size: 20, after: undefined })
      expect((yield* validate(ListOrgsRequest)({ pageSize: 1 })).query.size).toBe(1)
      expect((yield* validate(ListOrgsRequest)({ pageSize: 100 })).query.size).toBe(100)
    }))

  it.effect("a size above 100, negative or not whole is refused, naming pageSize", () =>
    Effect.gen(function*() {
      const rule = "pageSize: must be between 1 and 100 (0 or absent means 20)"
      expect(yield* messageFor(ListOrgsRequest, { pageSize: 101 })).toBe(rule)
      expect(yield* messageFor(ListOrgsRequest, { pageSize: -1 })).toBe(rule)
      expect(yield* messageFor(ListOrgsRequest, { pageSize: 1.5 })).toBe("pageSize: must be a whole number")
      expect(yield* messageFor(ListOrgsRequest, { pageSize: "10" })).toBe("pageSize: must be a number")
    }))

  it.effect("a token goes on from its position, for the list and filter it was made for", () =>
    Effect.gen(function*() {
      const first = yield* validate(ListProfilesRequest)({ orgId: id.toUpperCase() })
      expect(first.query.filter).toBe(id)
      const token = tokenAfterFirst(first)
      const next = yield* validate(ListProfilesRequest)({ orgId: id, pageToken: token })
      expect(next.query.after).toEqual(position("2024-01-01T00:00:00Z"))
      expect(next.query.filter).toBe(id)
    }))

  it.effect("a token is refused with another filter, another list, or when it is not one", () =>
    Effect.gen(function*() {
      const token = tokenAfterFirst(yield* validate(ListProfilesRequest)({ orgId: id }))
      expect(yield* messageFor(ListProfilesRequest, { orgId: other, pageToken: token })).toBe(
        "pageToken: was made for another filter: list again from the first page"
      )
      expect(yield* messageFor(ListProfilesRequest, { pageToken: token })).toBe(
        "pageToken: was made for another filter: list again from the first page"
      )
      expect(yield* messageFor(ListLicensesRequest, { userId: id, pageToken: token })).toBe(
        "pageToken: was made for another list, not licenses"
      )
      for (const bad of ["nope", "!!!", Buffer.from("{}").toString("base64url"), token.slice(0, -3)]) {
        expect(yield* messageFor(ListOrgsRequest, { pageToken: bad })).toBe(
          "pageToken: must be a nextPageToken from an earlier answer of this list"
        )
      }
    }))

  it.effect("an empty or null filter lists everything; a bad one is refused naming its field", () =>
    Effect.gen(function*() {
      expect((yield* validate(ListLicensesRequest)({ userId: "" })).query.filter).toBeUndefined()
      expect((yield* validate(ListOnboardingWorkflowsRequest)({ status: null })).query.filter).toBeUndefined()
      expect((yield* validate(ListOnboardingWorkflowsRequest)({ status: "completed" })).query.filter).toBe("completed")
      expect(yield* messageFor(ListProfilesRequest, { orgId: "acme" })).toBe("orgId: must be a UUID (8-4-4-4-12 hex digits)")
      expect(yield* messageFor(ListLicensesRequest, { userId: "x" })).toBe("userId: must be a UUID (8-4-4-4-12 hex digits)")
      expect(yield* messageFor(ListOnboardingWorkflowsRequest, { status: "running" })).toBe("status: must be one of: completed")
    }))

  it.effect("every broken rule is reported at once", () =>
    Effect.map(
      messageFor(ListProfilesRequest, { pageSize: 500, pageToken: "x", orgId: "y" }),
      (message) =>
        expect(message.split("; ").map((part) => part.split(":")[0])).toEqual(["pageSize", "pageToken", "orgId"])
    ))
})

describe("pages", () => {
  it.effect("the extra row says there is a next page, which starts after the page's last row", () =>
    Effect.gen(function*() {
      const query = (yield* validate(ListOrgsRequest)({ pageSize: 2 })).query
      const rows = ["03", "02", "01"].map((s) => ({ value: s, position: position(`2024-01-01T00:00:${s}Z`) }))
      const full = pageOf(rows, query)
      expect(full.items).toEqual(["03", "02"])
      const next = yield* validate(ListOrgsRequest)({ pageSize: 2, pageToken: full.nextPageToken })
      expect(next.query.after).toEqual(position("2024-01-01T00:00:02Z"))
      expect(pageOf(rows.slice(0, 2), query)).toEqual({ items: ["03", "02"], nextPageToken: "" })
    }))

  it("newest first, then the larger id first", () => {
    const sorted = [position("2024-01-01T00:00:00Z", id), position("2024-01-01T00:00:00.000001Z", id), position("2024-01-01T00:00:00Z", other)]
      .sort(newestFirst)
    expect(sorted).toEqual([position("2024-01-01T00:00:00.000001Z", id), position("2024-01-01T00:00:00Z", other), position("2024-01-01T00:00:00Z", id)])
  })
})
