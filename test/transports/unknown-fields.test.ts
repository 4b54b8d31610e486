import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { CreateOrgRequestSchema } from "../../src/gen/org/v1beta1/org_pb.js"
import { Services } from "../support/Services.js"
import type { ServiceUrls } from "../e2e/support/StyleClient.js"
import { type Answer, connectGet, connectPost, graphqlCall, protoBytes, restCall, rpcPost, rpcRequest } from "../reliability/support/wire.js"
import { inProcessServers } from "../support/InProcessServers.js"
import { rowCounts } from "../support/rows.js"

/**
 * A JSON request naming a field its message does not have is refused (contract §3.2): in every
 * JSON style, nested objects included, with the field's path as the caller wrote it, in the
 * style's form of invalid_argument, and nothing written. Every spelling the contract accepts
 * (`full_name` beside `fullName`) still is. Binary protobuf keeps its wire rule: an unknown field
 * number is skipped.
 */

const unknown = (...paths: ReadonlyArray<string>) => paths.map((path) => `${path}: is not a known field`).join("; ")
const start = "2023-11-16T12:00:00Z"
const end = "2024-11-16T12:00:00Z"

const service = {
  org: "org.v1beta1.OrgService",
  profile: "profile.v1beta1.ProfileService",
  license: "license.v1beta1.LicenseService",
  workflow: "workflow.v1beta1.WorkflowService"
} as const

/** A record's read back, in the style it was refused in: what must answer "not found". */
type ReadBack = (urls: ServiceUrls) => Promise<Answer>

/** A message's violations, in any order: each style tells them in the order it finds them. */
const violations = (message: unknown) => (typeof message === "string" ? message.split("; ").sort() : message)

/** `send` refused with `want` in its style's form, no row written, and the record it named not found. */
const refused = (send: (urls: ServiceUrls) => Promise<Answer>, want: Partial<Answer>, readBack: ReadBack, notFound: Partial<Answer>) =>
  Effect.gen(function*() {
    const urls = yield* Services
    const before = yield* rowCounts
    const answer = yield* Effect.promise(() => send(urls))
    const told = typeof want.message === "string" ? violations(answer.message) : answer.message
    expect({ status: answer.status, code: answer.code, message: told }).toEqual({ status: answer.status, ...want, message: violations(want.message) })
    expect(yield* rowCounts).toEqual(before)
    expect(yield* Effect.promise(() => readBack(urls))).toMatchObject(notFound)
  })

const accepted = (send: (urls: ServiceUrls) => Promise<Answer>) =>
  Effect.gen(function*() {
    const urls = yield* Services
    const answer = yield* Effect.promise(() => send(urls))
    expect({ status: answer.status, message: answer.message }).toEqual({ status: 200, message: "" })
    return answer.body
  })

const rest = {
  refusal: (message: string) => ({ status: 400, code: 3, message }),
  notFound: { status: 404, code: 5 },
  get: (port: keyof ServiceUrls, path: string) => (urls: ServiceUrls) => restCall(`${urls[port]}${path}`, "GET")
}
const connect = {
  refusal: (message: string) => ({ status: 400, code: "invalid_argument", message }),
  notFound: { status: 404, code: "not_found" },
  get: (port: keyof ServiceUrls, method: string, id: object) => (urls: ServiceUrls) =>
    connectPost(urls[port], `${service[port]}/${method}`, JSON.stringify(id))
}
const rpc = {
  refusal: (message: string) => ({ status: 200, code: "InvalidArgument", message }),
  notFound: { code: "NotFound" },
  get: (port: keyof ServiceUrls, tag: string, id: object) => (urls: ServiceUrls) => rpcPost(urls[port], rpcRequest(tag, id))
}

/** A workflow request in proto names (as the interface spells it), with unknown fields at every level. */
const workflowWithExtras = (workflowId: string) => ({
  workflow_options: { workflow_id: workflowId, retries: 3 },
  license: { start, end, seats: 5 },
  org: { name: "Initech", domain: "initech.example" },
  profile: { full_name: "Peter Gibbons", shoeSize: 10 },
  tracing: { spanId: "abc" }
})
const workflowUnknowns = unknown("workflowOptions.retries", "license.seats", "org.domain", "profile.shoeSize", "tracing")

describe("unknown JSON fields", () => {
  layer(inProcessServers(), { timeout: 120_000, excludeTestServices: true })((it) => {
    describe("REST", () => {
      for (const method of ["POST", "PUT"]) {
        it.effect(`${method} /orgs/{id} with a misspelt field: 400 naming it, nothing written`, () => {
          const id = randomUUID()
          return refused(
            (urls) => restCall(`${urls.org}/orgs/${id}`, method, JSON.stringify({ name: "Typo", nmae: "y" })),
            rest.refusal(unknown("nmae")),
            rest.get("org", `/orgs/${id}`),
            rest.notFound
          )
        })
      }

      it.effect("a profile in proto names with an unknown one: named as written", () => {
        const id = randomUUID()
        return refused(
          (urls) =>
            restCall(`${urls.profile}/profiles/${id}`, "PUT", JSON.stringify({ full_name: "Ada", org_id: randomUUID(), nick_name: "A" })),
          rest.refusal(unknown("nick_name")),
          rest.get("profile", `/profiles/${id}`),
          rest.notFound
        )
      })

      it.effect("a license with an unknown field beside a broken rule: both told", () => {
        const id = randomUUID()
        return refused(
          (urls) => restCall(`${urls.license}/licenses/${id}`, "POST", JSON.stringify({ user_id: "x", start, end, seats: 5 })),
          rest.refusal(`userId: must be a UUID (8-4-4-4-12 hex digits); ${unknown("seats")}`),
          rest.get("license", `/licenses/${id}`),
          rest.notFound
        )
      })

      it.effect("the workflow: unknown fields of its nested objects, each by its path", () => {
        const workflowId = randomUUID()
        return refused(
          (urls) => restCall(`${urls.workflow}/workflow/workflows/onboarding`, "POST", JSON.stringify(workflowWithExtras(workflowId))),
          rest.refusal(workflowUnknowns),
          rest.get("workflow", `/workflow/workflows/onboarding/${workflowId}`),
          rest.notFound
        )
      })

      it.effect("`__proto__` is a field like any other", () => {
        const id = randomUUID()
        return refused(
          (urls) => restCall(`${urls.org}/orgs/${id}`, "PUT", `{"name":"Acme","__proto__":{"name":"x"}}`),
          rest.refusal(unknown("__proto__")),
          rest.get("org", `/orgs/${id}`),
          rest.notFound
        )
      })

      it.effect("every accepted spelling still is: proto names, JSON names, both at once", () =>
        Effect.gen(function*() {
          const orgId = randomUUID()
          const profileId = randomUUID()
          yield* accepted((urls) => restCall(`${urls.org}/orgs/${orgId}`, "PUT", JSON.stringify({ id: orgId, name: "Acme" })))
          const profile = yield* accepted((urls) =>
            restCall(`${urls.profile}/profiles/${profileId}`, "PUT", JSON.stringify({ full_name: "Ada", fullName: "Ada L", org_id: orgId }))
          )
          expect(profile).toEqual({ profile: { id: profileId, fullName: "Ada L", orgId } })
          yield* accepted((urls) => restCall(`${urls.license}/licenses/${randomUUID()}`, "PUT", JSON.stringify({ user_id: profileId, start, end })))
          const workflowId = randomUUID()
          const { workflow_options: _, tracing: __, ...known } = workflowWithExtras(workflowId)
          const run = yield* accepted((urls) =>
            restCall(
              `${urls.workflow}/workflow/workflows/onboarding`,
              "POST",
              JSON.stringify({
                workflow_options: { workflow_id: workflowId },
                license: { start: known.license.start, end: known.license.end },
                org: { name: known.org.name },
                profile: { full_name: known.profile.full_name }
              })
            )
          )
          expect(run).toMatchObject({ workflowId })
          const page = yield* accepted((urls) => restCall(`${urls.profile}/profiles?org_id=${orgId}&page_size=1`, "GET"))
          expect(page).toMatchObject({ profiles: [{ id: profileId }] })
        }))
    })

    describe("Connect JSON", () => {
      it.effect("CreateOrg with a misspelt field: invalid_argument naming it, nothing written", () => {
        const id = randomUUID()
        return refused(
          (urls) => connectPost(urls.org, `${service.org}/CreateOrg`, JSON.stringify({ id, name: "Typo", nmae: "y" })),
          connect.refusal(unknown("nmae")),
          connect.get("org", "GetOrg", { id }),
          connect.notFound
        )
      })

      it.effect("CreateProfile and CreateLicense in proto names with unknown ones", () =>
        Effect.gen(function*() {
          const profileId = randomUUID()
          yield* refused(
            (urls) =>
              connectPost(
                urls.profile,
                `${service.profile}/CreateProfile`,
                JSON.stringify({ id: profileId, full_name: "Ada", org_id: randomUUID(), nick_name: "A" })
              ),
            connect.refusal(unknown("nick_name")),
            connect.get("profile", "GetProfile", { id: profileId }),
            connect.notFound
          )
          const licenseId = randomUUID()
          yield* refused(
            (urls) =>
              connectPost(
                urls.license,
                `${service.license}/CreateLicense`,
                JSON.stringify({ id: licenseId, user_id: randomUUID(), start: "2023-02-30T00:00:00Z", end, seats: 5 })
              ),
            connect.refusal(
              `${unknown("seats")}; start: must be an RFC 3339 timestamp between 0001-01-01 and 9999-12-31, e.g. 2023-11-16T12:00:00Z`
            ),
            connect.get("license", "GetLicense", { id: licenseId }),
            connect.notFound
          )
        }))

      it.effect("the workflow: unknown fields of its nested objects, each by its path", () => {
        const workflowId = randomUUID()
        return refused(
          (urls) => connectPost(urls.workflow, `${service.workflow}/CreateOnboardingWorkflow`, JSON.stringify(workflowWithExtras(workflowId))),
          connect.refusal(workflowUnknowns),
          connect.get("workflow", "GetOnboardingWorkflow", { workflow_id: workflowId }),
          connect.notFound
        )
      })

      it.effect("a GET's message is held to the same rule", () =>
        Effect.gen(function*() {
          const urls = yield* Services
          const message = encodeURIComponent(JSON.stringify({ id: randomUUID(), nmae: "y" }))
          const answer = yield* Effect.promise(() => connectGet(urls.org, `${service.org}/GetOrg`, `encoding=json&message=${message}`))
          expect(answer).toMatchObject(connect.refusal(unknown("nmae")))
        }))

      it.effect("proto names and JSON names are both accepted", () =>
        Effect.gen(function*() {
          const workflowId = randomUUID()
          const body = { workflowOptions: { workflow_id: workflowId }, license: { start, end }, org: { name: "Acme" }, profile: { full_name: "Ada" } }
          const run = yield* accepted((urls) => connectPost(urls.workflow, `${service.workflow}/CreateOnboardingWorkflow`, JSON.stringify(body)))
          expect(run).toMatchObject({ workflowId })
        }))
    })

    describe("binary protobuf", () => {
      it.effect("an unknown field number is skipped, as protobuf's wire rule says", () =>
        Effect.gen(function*() {
          const id = randomUUID()
          // field 15, varint 1: CreateOrgRequest has no such field
          const bytes = Buffer.concat([protoBytes(CreateOrgRequestSchema, { id, name: "Acme" }), Uint8Array.from([0x78, 0x01])])
          const created = yield* Effect.flatMap(Services, (urls) =>
            Effect.promise(() => connectPost(urls.org, `${service.org}/CreateOrg`, bytes, "application/proto")))
          expect(created.status).toBe(200)
          const read = yield* Effect.flatMap(Services, (urls) => Effect.promise(() => connect.get("org", "GetOrg", { id })(urls)))
          expect(read.body).toEqual({ org: { id, name: "Acme" } })
        }))
    })

    describe("/rpc", () => {
      it.effect("CreateOrg with a misspelt field: the InvalidArgument failure naming it, nothing written", () => {
        const id = randomUUID()
        return refused(
          (urls) => rpcPost(urls.org, rpcRequest("CreateOrg", { id, name: "Typo", nmae: "y" })),
          rpc.refusal(unknown("nmae")),
          rpc.get("org", "GetOrg", { id }),
          rpc.notFound
        )
      })

      it.effect("the workflow: unknown fields of its nested objects, each by its path", () => {
        const workflowId = randomUUID()
        const payload = {
          workflowOptions: { workflowId, retries: 3 },
          license: { start, end, seats: 5 },
          org: { name: "Initech", domain: "initech.example" },
          profile: { fullName: "Peter Gibbons", shoeSize: 10 },
          tracing: { spanId: "abc" }
        }
        return refused(
          (urls) => rpcPost(urls.workflow, rpcRequest("CreateOnboardingWorkflow", payload)),
          rpc.refusal(workflowUnknowns),
          rpc.get("workflow", "GetOnboardingWorkflow", { workflowId }),
          rpc.notFound
        )
      })
    })

    describe("GraphQL (its own input coercion)", () => {
      it.effect("an unknown field of an input object is a request error", () => {
        const id = randomUUID()
        const query = "mutation($input: CreateOrgInput!) { createOrg(input: $input) { org { id } } }"
        return refused(
          (urls) => graphqlCall(urls.org, JSON.stringify({ query, variables: { input: { id, name: "Typo", nmae: "y" } } })),
          { status: 400, code: "INVALID_ARGUMENT", message: expect.stringMatching(/Field "nmae" is not defined by type "CreateOrgInput"/) as unknown as string },
          rest.get("org", `/orgs/${id}`),
          rest.notFound
        )
      })
    })
  })
})
