import { RpcClient } from "@effect/rpc"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { CreateOrgRequestSchema } from "../../src/gen/org/v1beta1/org_pb.js"
import { CreateProfileRequestSchema } from "../../src/gen/profile/v1beta1/profile_pb.js"
import { OrgOperations } from "../../src/contract/OrgOperations.js"
import { ProfileOperations } from "../../src/contract/ProfileOperations.js"
import { WorkflowOperations } from "../../src/contract/WorkflowOperations.js"
import { Services } from "../support/Services.js"
import type { ServiceUrls } from "../e2e/support/StyleClient.js"
import { inProcessServers } from "../support/InProcessServers.js"
import { rowCounts } from "../support/rows.js"
import { testDatabaseKind } from "../support/TestDatabase.js"
import {
  type Answer,
  connectGet,
  connectPost,
  envelope,
  graphqlCall,
  grpcJsCall,
  grpcRaw,
  grpcWebRaw,
  healthz,
  type Port,
  protoBytes,
  restCall,
  rpcPost,
  rpcRequest,
  rpcTyped
} from "./support/wire.js"

/**
 * Strict text (contract §2, §3): request text that is not UTF-8 is refused, never stored as
 * U+FFFD; a charset other than UTF-8 is 415; and a name must hold a visible character and no
 * control or bidi-override character, the same rule in every style. Each refusal writes nothing.
 */

const createOrg = "org.v1beta1.OrgService/CreateOrg"
const getOrg = "org.v1beta1.OrgService/GetOrg"
const createProfile = "profile.v1beta1.ProfileService/CreateProfile"
const createWorkflow = "workflow.v1beta1.WorkflowService/CreateOnboardingWorkflow"

/** `{"id": "...", "name": "Ac<0xE9>me"}`: a Latin-1 é, which is not UTF-8. */
const latin1Org = () =>
  Buffer.concat([Buffer.from(`{"id":"${randomUUID()}","name":"Ac`), Buffer.from([0xe9]), Buffer.from(`me"}`)])

/** A truncated three-byte sequence and an overlong encoding of "/" inside a workflow's org name. */
const brokenWorkflow = () =>
  Buffer.concat([
    Buffer.from(`{"license":{"start":"2023-11-16T12:00:00Z","end":"2024-11-16T12:00:00Z"},"org":{"name":"In`),
    Buffer.from([0xe2, 0x82, 0xc0, 0xaf]),
    Buffer.from(`tech"},"profile":{"fullName":"Peter Gibbons"}}`)
  ])

/** Refused with the style's invalid_argument, nothing written, the port still answering. */
const refused = (
  port: Port,
  send: (urls: ServiceUrls) => Promise<Answer>,
  want: { readonly status?: number; readonly code: string | number; readonly message: string | RegExp }
) =>
  Effect.gen(function*() {
    const urls = yield* Services
    const before = yield* rowCounts
    const answer = yield* Effect.promise(() => send(urls))
    expect({ status: want.status === undefined ? undefined : answer.status, code: answer.code }).toEqual({
      status: want.status,
      code: want.code
    })
    if (want.message instanceof RegExp) expect(answer.message).toMatch(want.message)
    else expect(answer.message).toBe(want.message)
    expect(yield* rowCounts).toEqual(before)
    expect(yield* Effect.promise(() => healthz(urls[port]))).toBe(200)
  })

const notUtf8Message = "the request message is not valid UTF-8"

describe(`strict text (${testDatabaseKind})`, () => {
  layer(inProcessServers(), { timeout: 60_000, excludeTestServices: true })((it) => {
    describe("bytes that are not UTF-8", () => {
      it.effect("Connect JSON", () =>
        refused("org", (urls) => connectPost(urls.org, createOrg, latin1Org(), "application/json"), {
          status: 400,
          code: "invalid_argument",
          message: notUtf8Message
        }))
      it.effect("Connect JSON, a workflow (the Timestamp check reads it first)", () =>
        refused("workflow", (urls) => connectPost(urls.workflow, createWorkflow, brokenWorkflow(), "application/json"), {
          status: 400,
          code: "invalid_argument",
          message: notUtf8Message
        }))
      it.effect("Connect GET, percent-encoded (encoding=json)", () =>
        refused("org", (urls) => connectGet(urls.org, getOrg, `encoding=json&message=%7B%22id%22%3A%22%E9%22%7D`), {
          status: 400,
          code: "invalid_argument",
          message: `message: ${notUtf8Message}`
        }))
      it.effect("Connect GET, base64 (encoding=json&base64=1)", () =>
        refused(
          "org",
          (urls) => connectGet(urls.org, getOrg, `encoding=json&base64=1&message=${latin1Org().toString("base64url")}`),
          { status: 400, code: "invalid_argument", message: notUtf8Message }
        ))
      it.effect("gRPC with the JSON codec (raw HTTP/2)", () =>
        refused(
          "org",
          (urls) => grpcRaw(urls.org, createOrg, envelope(latin1Org()), { "content-type": "application/grpc+json" }),
          { code: 3, message: notUtf8Message }
        ))
      it.effect("gRPC-Web with the JSON codec", () =>
        refused(
          "org",
          (urls) => grpcWebRaw(urls.org, createOrg, envelope(latin1Org()), "application/grpc-web+json"),
          { status: 200, code: 3, message: notUtf8Message }
        ))
      // fetch would send a string as UTF-8: the bytes go as they are.
      const restBytes = (url: string, method: string, body: Buffer) =>
        fetch(url, { method, headers: { "content-type": "application/json" }, body }).then(async (r): Promise<Answer> => {
          const json = await r.json() as { code: number; message: string }
          return { status: r.status, code: json.code, message: json.message }
        })
      it.effect("REST", () =>
        refused("org", (urls) => restBytes(`${urls.org}/orgs/${randomUUID()}`, "PUT", latin1Org()), {
          status: 400,
          code: 3,
          message: "the request body is not valid UTF-8"
        }))
      it.effect("REST, a workflow", () =>
        refused(
          "workflow",
          (urls) => restBytes(`${urls.workflow}/workflow/workflows/onboarding`, "POST", brokenWorkflow()),
          { status: 400, code: 3, message: "the request body is not valid UTF-8" }
        ))
      it.effect("Effect RPC (raw /rpc)", () =>
        refused(
          "org",
          (urls) =>
            rpcPost(
              urls.org,
              Buffer.concat([
                Buffer.from(`{"_tag":"Request","id":"1","tag":"CreateOrg","headers":[],"payload":`),
                latin1Org(),
                Buffer.from("}")
              ])
            ),
          { status: 400, code: 3, message: "the request body is not valid UTF-8" }
        ))
    })

    describe("charsets other than UTF-8", () => {
      for (const charset of ["utf-16", "latin1", "ISO-8859-1"]) {
        it.effect(`REST: charset=${charset} is 415`, () =>
          refused(
            "org",
            (urls) =>
              restCall(`${urls.org}/orgs/${randomUUID()}`, "PUT", `{"name":"Acme"}`, `application/json; charset=${charset}`),
            { status: 415, code: 3, message: /UTF-8/ }
          ))
        it.effect(`Connect JSON: charset=${charset} is 415`, () =>
          Effect.gen(function*() {
            const urls = yield* Services
            const before = yield* rowCounts
            const answer = yield* Effect.promise(() =>
              connectPost(urls.org, createOrg, JSON.stringify({ id: randomUUID(), name: "Acme" }), `application/json; charset=${charset}`)
            )
            expect(answer.status).toBe(415)
            expect(yield* rowCounts).toEqual(before)
          }))
      }
      it.effect("REST: charset=utf-8 (and UTF8, quoted) is accepted", () =>
        Effect.gen(function*() {
          const urls = yield* Services
          for (const charset of ["utf-8", "UTF8", "\"utf-8\""]) {
            const answer = yield* Effect.promise(() =>
              restCall(`${urls.org}/orgs/${randomUUID()}`, "PUT", `{"name":"Acme"}`, `application/json; charset=${charset}`)
            )
            expect(answer.status).toBe(200)
          }
        }))
    })

    const controls = "must not contain control characters"
    const bidi = "must not contain bidirectional embedding, override or isolate characters (U+202A-U+202E, U+2066-U+2069)"
    const invisible = "must contain a visible character"
    const names: ReadonlyArray<readonly [string, string, string]> = [
      ["only a zero-width space", "\u200b", invisible],
      ["only spaces and format characters", " \u200b\u2060\u00ad ", invisible],
      ["only Hangul fillers", "\u3164\u3164", invisible],
      ["a C1 control (U+0085)", "Acme\u0085Corp", controls],
      ["a tab", "Acme\tCorp", controls],
      ["a right-to-left override (U+202E)", "Acme\u202Egnp.exe", bidi],
      ["a first-strong isolate (U+2068)", "\u2068Acme\u2069", bidi]
    ]

    for (const [what, name, rule] of names) {
      describe(`a name holding ${what}`, () => {
        const org = () => ({ id: randomUUID(), name })
        const profile = () => ({ id: randomUUID(), fullName: name, orgId: randomUUID() })
        const nameRule = `name: ${rule}`
        it.effect("Connect JSON", () =>
          refused("org", (urls) => connectPost(urls.org, createOrg, JSON.stringify(org())), {
            status: 400,
            code: "invalid_argument",
            message: nameRule
          }))
        it.effect("Connect binary", () =>
          refused("org", (urls) => connectPost(urls.org, createOrg, protoBytes(CreateOrgRequestSchema, org())), {
            status: 400,
            code: "invalid_argument",
            message: nameRule
          }))
        it.effect("gRPC (@grpc/grpc-js)", () =>
          refused("profile", (urls) => grpcJsCall(urls.profile, createProfile, { message: profile() }), {
            code: 3,
            message: `fullName: ${rule}`
          }))
        it.effect("gRPC (raw HTTP/2)", () =>
          refused(
            "profile",
            (urls) => grpcRaw(urls.profile, createProfile, envelope(protoBytes(CreateProfileRequestSchema, profile()))),
            { code: 3, message: `fullName: ${rule}` }
          ))
        it.effect("gRPC-Web", () =>
          refused("org", (urls) => grpcWebRaw(urls.org, createOrg, envelope(protoBytes(CreateOrgRequestSchema, org()))), {
            status: 200,
            code: 3,
            message: nameRule
          }))
        it.effect("REST", () =>
          refused("org", (urls) => restCall(`${urls.org}/orgs/${randomUUID()}`, "PUT", JSON.stringify({ name })), {
            status: 400,
            code: 3,
            message: nameRule
          }))
        it.effect("REST, a workflow", () =>
          refused(
            "workflow",
            (urls) =>
              restCall(
                `${urls.workflow}/workflow/workflows/onboarding`,
                "POST",
                JSON.stringify({
                  license: { start: "2023-11-16T12:00:00Z", end: "2024-11-16T12:00:00Z" },
                  org: { name: "Initech" },
                  profile: { full_name: name }
                })
              ),
            { status: 400, code: 3, message: `profile.fullName: ${rule}` }
          ))
        it.effect("GraphQL", () =>
          refused(
            "org",
            (urls) =>
              graphqlCall(
                urls.org,
                JSON.stringify({
                  query: "mutation($input: CreateOrgInput!) { createOrg(input: $input) { org { id } } }",
                  variables: { input: org() }
                })
              ),
            { status: 200, code: "INVALID_ARGUMENT", message: nameRule }
          ))
        it.effect("Effect RPC (raw /rpc)", () =>
          refused("org", (urls) => rpcPost(urls.org, rpcRequest("CreateOrg", org())), {
            status: 200,
            code: "InvalidArgument",
            message: nameRule
          }))
        it.effect("Effect RPC (typed client)", () =>
          refused(
            "profile",
            (urls) => rpcTyped(urls.profile, Effect.flatMap(RpcClient.make(ProfileOperations), (c) => c.CreateProfile(profile()))),
            { code: "InvalidArgument", message: `fullName: ${rule}` }
          ))
        it.effect("Effect RPC (typed client), a workflow", () =>
          refused(
            "workflow",
            (urls) =>
              rpcTyped(
                urls.workflow,
                Effect.flatMap(RpcClient.make(WorkflowOperations), (c) =>
                  c.CreateOnboardingWorkflow({
                    license: { start: "2023-11-16T12:00:00Z", end: "2024-11-16T12:00:00Z" },
                    org: { name },
                    profile: { fullName: "Peter Gibbons" }
                  }))
              ),
            { code: "InvalidArgument", message: `org.name: ${rule}` }
          ))
      })
    }

    it.effect("names with direction marks, joiners and combining marks among visible characters are stored as sent", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        for (const name of ["مرحبا\u200f بالعالم", "👩\u200d👩\u200d👧", "e\u0301clair", "Acme\u00a0Corp"]) {
          const created = { id: randomUUID(), name }
          const written = yield* Effect.promise(() =>
            rpcTyped(urls.org, Effect.flatMap(RpcClient.make(OrgOperations), (c) => c.CreateOrg(created)))
          )
          expect(written.code).toBe("ok")
          const read = yield* Effect.promise(() => connectPost(urls.org, getOrg, JSON.stringify({ id: created.id })))
          expect(read.body).toEqual({ org: created })
        }
      }))
  })
})
