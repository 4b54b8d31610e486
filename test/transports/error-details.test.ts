import { create, createRegistry, fromBinary, type JsonValue, toBinary } from "@bufbuild/protobuf"
import { anyUnpack } from "@bufbuild/protobuf/wkt"
import { Code, ConnectError, createClient, type Transport } from "@connectrpc/connect"
import { errorFromJson } from "@connectrpc/connect/protocol-connect"
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node"
import * as grpc from "@grpc/grpc-js"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { BadRequestSchema, ResourceInfoSchema } from "../../src/gen/google/rpc/error_details_pb.js"
import { StatusSchema } from "../../src/gen/google/rpc/status_pb.js"
import { CreateProfileRequestSchema, GetProfileRequestSchema, ProfileService } from "../../src/gen/profile/v1beta1/profile_pb.js"
import { Services } from "../support/Services.js"
import { inProcessServers } from "../support/InProcessServers.js"

/**
 * A refusal's details as the clients a caller uses read them (contract §3.7): connect-es's
 * `findDetails` over Connect (JSON and binary) and gRPC, @grpc/grpc-js decoding
 * `grpc-status-details-bin` as google.rpc.Status, REST's `details` and GraphQL's `extensions`
 * by fetch. Every refusal in every style: a field by its path as the caller spelled it in JSON, by
 * its proto name in protobuf binary and gRPC; the record a failure is about.
 */

/** What a client reads off a refusal: its code, its field violations, the record it is about. */
interface Read {
  readonly code: Code
  readonly violations: ReadonlyArray<{ readonly field: string; readonly description: string }>
  readonly resource?: { readonly resourceType: string; readonly resourceName: string }
}

/** A create with these JSON keys (`fullName` or `full_name`) and values, or a get. */
type Call = { readonly create: Record<string, unknown> } | { readonly get: string }

const fromConnectError = (error: ConnectError): Read => {
  const [info] = error.findDetails(ResourceInfoSchema)
  return {
    code: error.code,
    violations: error.findDetails(BadRequestSchema).flatMap((bad) => bad.fieldViolations.map(({ description, field }) => ({ field, description }))),
    ...(info === undefined ? {} : { resource: { resourceType: info.resourceType, resourceName: info.resourceName } })
  }
}

/** The message's fields from a call's JSON keys, whichever spelling. */
const fieldsOf = (body: Record<string, unknown>) => ({
  id: String(body["id"]),
  fullName: (body["fullName"] ?? body["full_name"]) as string,
  orgId: String(body["orgId"] ?? body["org_id"])
})

const refused = (): never => {
  throw new Error("the call succeeded")
}

/** connect-es's typed client on a connect-node transport. */
const connectEs = (transport: Transport) => async (call: Call): Promise<Read> => {
  const client = createClient(ProfileService, transport)
  try {
    if ("get" in call) await client.getProfile({ id: call.get })
    else await client.createProfile(fieldsOf(call.create))
  } catch (error) {
    return fromConnectError(ConnectError.from(error))
  }
  return refused()
}

/** Connect JSON with the body's keys as written, its error read by connect-es (`errorFromJson`). */
const connectJsonAsWritten = (url: string) => async (call: Call): Promise<Read> => {
  const answer = await fetch(`${url}/profile.v1beta1.ProfileService/${"get" in call ? "GetProfile" : "CreateProfile"}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify("get" in call ? { id: call.get } : call.create)
  })
  return fromConnectError(errorFromJson(await answer.json() as JsonValue, undefined, new ConnectError("not a Connect error")))
}

const details = createRegistry(BadRequestSchema, ResourceInfoSchema)

/** @grpc/grpc-js, the details decoded from `grpc-status-details-bin` as google.rpc.Status. */
const grpcJs = (url: string) => (call: Call): Promise<Read> => {
  const client = new grpc.Client(new URL(url).host, grpc.credentials.createInsecure())
  const [method, bytes] = "get" in call
    ? ["GetProfile", toBinary(GetProfileRequestSchema, create(GetProfileRequestSchema, { id: call.get }))]
    : ["CreateProfile", toBinary(CreateProfileRequestSchema, create(CreateProfileRequestSchema, fieldsOf(call.create)))]
  return new Promise<Read>((resolve, reject) => {
    client.makeUnaryRequest(`/profile.v1beta1.ProfileService/${method}`, (b: Uint8Array) => Buffer.from(b), (b: Buffer) => b, bytes, (error) => {
      client.close()
      if (error === null) return reject(new Error("the call succeeded"))
      const [bin] = error.metadata.get("grpc-status-details-bin")
      const status = fromBinary(StatusSchema, bin as Buffer)
      const unpacked = status.details.map((any) => anyUnpack(any, details))
      const info = unpacked.find((message) => message?.$typeName === ResourceInfoSchema.typeName)
      resolve({
        code: error.code as number as Code,
        violations: unpacked.flatMap((message) =>
          message?.$typeName === BadRequestSchema.typeName
            ? (message as ReturnType<typeof create<typeof BadRequestSchema>>).fieldViolations.map(({ description, field }) => ({ field, description }))
            : []),
        ...(info === undefined ? {} : {
          resource: {
            resourceType: (info as ReturnType<typeof create<typeof ResourceInfoSchema>>).resourceType,
            resourceName: (info as ReturnType<typeof create<typeof ResourceInfoSchema>>).resourceName
          }
        })
      })
    })
  })
}

const grpcCodes: Record<number, Code> = { 400: Code.InvalidArgument, 404: Code.NotFound, 409: Code.AlreadyExists }

/** REST by fetch: `details` as google.rpc.Status JSON. */
const rest = (url: string) => async (call: Call): Promise<Read> => {
  const answer = "get" in call
    ? await fetch(`${url}/profiles/${call.get}`)
    : await fetch(`${url}/profiles/${call.create["id"]}`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify(call.create) })
  const body = await answer.json() as { details: Array<Record<string, any>> }
  const info = body.details.find((d) => d["@type"] === "type.googleapis.com/google.rpc.ResourceInfo")
  return {
    code: grpcCodes[answer.status]!,
    violations: body.details.filter((d) => d["@type"] === "type.googleapis.com/google.rpc.BadRequest").flatMap((d) => d["fieldViolations"]),
    ...(info === undefined ? {} : { resource: { resourceType: info["resourceType"], resourceName: info["resourceName"] } })
  }
}

const graphqlCodes: Record<string, Code> = { INVALID_ARGUMENT: Code.InvalidArgument, NOT_FOUND: Code.NotFound, ALREADY_EXISTS: Code.AlreadyExists }

/** GraphQL by fetch: `extensions.fieldViolations` and `extensions.resourceInfo`. GraphQL spells a field one way only. */
const graphql = (url: string) => async (call: Call): Promise<Read> => {
  const answer = await fetch(`${url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify("get" in call
      ? { query: "query($id: ID!) { profile(id: $id) { profile { id } } }", variables: { id: call.get } }
      : { query: "mutation($i: CreateProfileInput!) { createProfile(input: $i) { profile { id } } }", variables: { i: fieldsOf(call.create) } })
  })
  const { errors: [error] } = await answer.json() as { errors: [{ extensions: Record<string, any> }] }
  return {
    code: graphqlCodes[error.extensions["code"]]!,
    violations: error.extensions["fieldViolations"] ?? [],
    ...(error.extensions["resourceInfo"] === undefined ? {} : { resource: error.extensions["resourceInfo"] })
  }
}

/** Each style's client, and how it names a field: as the call spelled it (JSON), or by its proto name. */
const styles = (url: string) => [
  { style: "Connect JSON (connect-es)", read: connectEs(createConnectTransport({ baseUrl: url, httpVersion: "1.1", useBinaryFormat: false })), names: "json" },
  { style: "Connect JSON as written", read: connectJsonAsWritten(url), names: "json" },
  { style: "Connect binary (connect-es)", read: connectEs(createConnectTransport({ baseUrl: url, httpVersion: "1.1", useBinaryFormat: true })), names: "proto" },
  { style: "gRPC (connect-es)", read: connectEs(createGrpcTransport({ baseUrl: url })), names: "proto" },
  { style: "gRPC (@grpc/grpc-js)", read: grpcJs(url), names: "proto" },
  { style: "REST", read: rest(url), names: "json" },
  { style: "GraphQL", read: graphql(url), names: "json" }
] as const

describe("a refusal's details, read by each style's client", () => {
  layer(inProcessServers(), { timeout: 120_000, excludeTestServices: true })((it) => {
    // Each style that can send the value: a number where a string goes cannot be said in protobuf
    // binary, nor by connect-es's typed clients.
    const fullNames = [
      { value: "x".repeat(201), rule: "must be at most 200 characters", sentBy: () => true },
      { value: 5, rule: "must be a string", sentBy: (style: string) => !style.includes("connect-es") && style !== "gRPC (@grpc/grpc-js)" },
      { value: ["Ada"], rule: "must be a string", sentBy: (style: string) => !style.includes("connect-es") && style !== "gRPC (@grpc/grpc-js)" }
    ]

    it.effect("a full name that breaks a rule: a BadRequest violation naming the field as the caller spelled it, or by its proto name", () =>
      Effect.gen(function*() {
        const { profile } = yield* Services
        const orgId = randomUUID()
        for (const { rule, sentBy, value } of fullNames) {
          for (const { names, read, style } of styles(profile).filter(({ style }) => sentBy(style))) {
            for (const spelled of ["fullName", "full_name"] as const) {
              const body = { id: randomUUID(), [spelled]: value, [spelled === "fullName" ? "orgId" : "org_id"]: orgId }
              const answer = yield* Effect.promise(() => read({ create: body }))
              // connect-es and GraphQL write a field one way, whatever the test spelled.
              const sent = style.includes("connect-es") || style === "GraphQL" ? "fullName" : spelled
              expect({ style, spelled, value, answer }).toEqual({
                style,
                spelled,
                value,
                answer: { code: Code.InvalidArgument, violations: [{ field: names === "proto" ? "full_name" : sent, description: rule }] }
              })
            }
          }
        }
      }))

    // The JSON a Connect call's message was read from reaches its handler through one slot
    // (connect/SentJson.ts), sound only while connect-es runs the handler right after the decode:
    // calls in flight together, some refused by the decode itself, must each name their own spelling.
    it.effect("concurrent Connect JSON refusals each name the field as their own call spelled it", () =>
      Effect.gen(function*() {
        const { profile } = yield* Services
        const read = connectJsonAsWritten(profile)
        const calls = Array.from({ length: 60 }, (_, i) => {
          const spelled = i % 2 === 0 ? "fullName" : "full_name"
          // Every third call is refused by the strict decoder (a number where a string goes): its
          // handler never runs, and the slot must not carry its JSON to another call.
          const value: unknown = i % 3 === 0 ? 7 : "x".repeat(201)
          return { spelled, body: { id: randomUUID(), [spelled]: value, orgId: randomUUID() } }
        })
        const answers = yield* Effect.promise(() =>
          Promise.all(calls.map(({ body }) =>
            fetch(`${profile}/profile.v1beta1.ProfileService/CreateProfile`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify(body)
            }).then(async (answer) => fromConnectError(errorFromJson(await answer.json() as JsonValue, undefined, new ConnectError("not a Connect error"))))
          ))
        )
        calls.forEach(({ spelled }, i) => {
          expect({ i, code: answers[i]!.code, fields: answers[i]!.violations.map((v) => v.field) }).toEqual({ i, code: Code.InvalidArgument, fields: [spelled] })
        })
        void read
      }))

    // graphql-js refuses these before any resolver runs: a literal as it validates the document, a
    // variable as it coerces it. Each error names its field as a resolver's refusal does (above).
    it.effect("GraphQL's own refusals of an argument or a variable: INVALID_ARGUMENT and a violation each", () =>
      Effect.gen(function*() {
        const { profile, workflow } = yield* Services
        const [id, orgId] = [randomUUID(), randomUUID()]
        const create = "mutation($i: CreateProfileInput!) { createProfile(input: $i) { profile { id } } }"
        const rows = [
          { port: profile, query: create, variables: { i: { id, fullName: 5, orgId } }, want: [["fullName", "must be a string"]] },
          { port: profile, query: create, variables: { i: { id, fullName: "Ada", orgId, nickname: "A" } }, want: [["nickname", "is not a known field"]] },
          { port: profile, query: create, variables: { i: { id, orgId } }, want: [["fullName", "is required"]] },
          { port: profile, query: create, variables: { i: { id, fullName: null, orgId } }, want: [["fullName", "must not be null"]] },
          {
            port: profile,
            query: `mutation { createProfile(input: {id: "${id}", fullName: 5, orgId: "${orgId}", nickname: "A"}) { profile { id } } }`,
            variables: {},
            want: [["fullName", "must be a string"], ["nickname", "is not a known field"]]
          },
          { port: profile, query: `mutation { createProfile(input: {id: "${id}", orgId: "${orgId}"}) { profile { id } } }`, variables: {}, want: [["fullName", "is required"]] },
          { port: profile, query: `mutation { createProfile(input: 5) { profile { id } } }`, variables: {}, want: [["input", "must be an object"]] },
          { port: profile, query: `{ profile(id: "${id}", nope: 1) { profile { id } } }`, variables: {}, want: [["nope", "is not a known field"]] },
          { port: profile, query: "query($id: ID!) { profile(id: $id) { profile { id } } }", variables: {}, want: [["id", "is required"]] },
          {
            port: profile,
            query: "query($n: Int) { profiles(pageSize: $n) { nextPageToken } }",
            variables: { n: "ten" },
            want: [["pageSize", "must be a whole number from -2147483648 to 2147483647"]]
          },
          {
            port: workflow,
            query: "mutation($i: CreateOnboardingWorkflowInput!) { createOnboardingWorkflow(input: $i) { workflowId } }",
            variables: { i: { org: { name: 5 }, profile: { fullName: "Ada", shoeSize: 10 }, license: { start: "2024-01-01T00:00:00Z", end: "2025-01-01T00:00:00Z" } } },
            want: [["org.name", "must be a string"], ["profile.shoeSize", "is not a known field"]]
          }
        ]
        for (const { port, query, variables, want } of rows) {
          const answer = yield* Effect.promise(() =>
            fetch(`${port}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query, variables }) })
              .then((reply) => reply.json() as Promise<{ errors: Array<{ extensions?: Record<string, any> }> }>)
          )
          expect({ query, variables, errors: answer.errors.map((error) => [error.extensions?.["code"], error.extensions?.["fieldViolations"]]) }).toEqual({
            query,
            variables,
            errors: want.map(([field, description]) => ["INVALID_ARGUMENT", [{ field, description }]])
          })
        }
      }))

    // A Connect GET carries its message as `?encoding=json&message=`; the same decoder reads it.
    it.effect("a Connect GET's message: the BadRequest its POST carries", () =>
      Effect.gen(function*() {
        const { profile } = yield* Services
        const method = `${profile}/profile.v1beta1.ProfileService/GetProfile`
        const rows = [
          { message: { id: "nope" }, want: [{ field: "id", description: "must be a UUID (8-4-4-4-12 hex digits)" }] },
          { message: { id: randomUUID(), nickname: "A" }, want: [{ field: "nickname", description: "is not a known field" }] },
          { message: { id: 5 }, want: [{ field: "id", description: "must be a string" }] },
          { message: { id: { value: randomUUID() } }, want: [{ field: "id", description: "must be a string" }] }
        ]
        for (const { message, want } of rows) {
          const read = (answer: Response) =>
            answer.json().then((json) => fromConnectError(errorFromJson(json as JsonValue, undefined, new ConnectError("not a Connect error"))))
          const get = yield* Effect.promise(() => fetch(`${method}?encoding=json&message=${encodeURIComponent(JSON.stringify(message))}`).then(read))
          const post = yield* Effect.promise(() =>
            fetch(method, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(message) }).then(read)
          )
          expect({ message, get, post }).toEqual({ message, get: { code: Code.InvalidArgument, violations: want }, post: { code: Code.InvalidArgument, violations: want } })
        }
      }))

    it.effect("a missing record and an id holding other content: ResourceInfo naming the record", () =>
      Effect.gen(function*() {
        const { profile } = yield* Services
        for (const { read, style } of styles(profile)) {
          const missing = randomUUID()
          expect({ style, answer: yield* Effect.promise(() => read({ get: missing })) }).toEqual({
            style,
            answer: { code: Code.NotFound, violations: [], resource: { resourceType: "profile", resourceName: missing } }
          })
          const taken = { id: randomUUID(), fullName: "Ada Lovelace", orgId: randomUUID() }
          yield* Effect.promise(() => read({ create: { ...taken, fullName: "x".repeat(201) } }))
          yield* Effect.promise(() => fetch(`${profile}/profiles/${taken.id}`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify(taken) }))
          expect({ style, answer: yield* Effect.promise(() => read({ create: { ...taken, fullName: "Grace Hopper" } })) }).toEqual({
            style,
            answer: { code: Code.AlreadyExists, violations: [], resource: { resourceType: "profile", resourceName: taken.id } }
          })
        }
      }))
  })
})
