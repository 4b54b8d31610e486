import { RpcClient } from "@effect/rpc"
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, FastCheck as fc, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { Name } from "../../src/domain/Name.js"
import { defaultSettings } from "../../src/main/Settings.js"
import { LicenseOperations } from "../../src/contract/LicenseOperations.js"
import { OrgOperations } from "../../src/contract/OrgOperations.js"
import { ProfileOperations } from "../../src/contract/ProfileOperations.js"
import { WorkflowOperations } from "../../src/contract/WorkflowOperations.js"
import { boundedParse, defaultDocumentBounds } from "../../src/transports/limits/DocumentBounds.js"
import { type DocumentNode, GraphQLError } from "../../src/transports/graphql/GraphqlJs.js"
import { limitErrors } from "../../src/transports/limits/QueryLimits.js"
import { Services } from "../support/Services.js"
import type { ServiceUrls } from "../e2e/support/StyleClient.js"
import { inProcessServers } from "../support/InProcessServers.js"
import { SqlServices } from "../support/SqlServices.js"
import { measuredCosts } from "../support/QueryWork.js"
import { rowCounts } from "../support/rows.js"
import { testDatabaseKind } from "../support/TestDatabase.js"
import {
  type Answer,
  connectNodeCall,
  connectNodeClients,
  type ConnectNodeStyle,
  connectNodeTransports,
  connectPost,
  envelope,
  graphqlCall,
  graphqlGet,
  graphqlResponseJson,
  grpcJsCall,
  grpcRaw,
  grpcWebRaw,
  healthz,
  httpCall,
  type Port,
  rawHttp,
  restCall,
  rpcPost,
  rpcRequest,
  rpcTyped
} from "./support/wire.js"

/**
 * Property-based abuse of every access style: generated requests that must all be refused
 * (ids that are never UUIDs, names that are never valid, impossible timestamps, garbage bytes,
 * random paths, methods, content types and GraphQL documents). Whatever arrives, a port never
 * answers 5xx (gRPC: never UNKNOWN, INTERNAL, UNAVAILABLE or DATA_LOSS), keeps answering
 * /healthz, and writes nothing. Hostile but valid names, on the other hand, are stored and read
 * back verbatim through another style.
 */

const ports: ReadonlyArray<Port> = ["org", "profile", "license", "workflow"]

const methods: Record<Port, { readonly create: string; readonly get: string }> = {
  org: { create: "org.v1beta1.OrgService/CreateOrg", get: "org.v1beta1.OrgService/GetOrg" },
  profile: { create: "profile.v1beta1.ProfileService/CreateProfile", get: "profile.v1beta1.ProfileService/GetProfile" },
  license: { create: "license.v1beta1.LicenseService/CreateLicense", get: "license.v1beta1.LicenseService/GetLicense" },
  workflow: {
    create: "workflow.v1beta1.WorkflowService/CreateOnboardingWorkflow",
    get: "workflow.v1beta1.WorkflowService/GetOnboardingWorkflow"
  }
}

/** gRPC statuses a refusal of the caller's input must never be. */
const serverFaults = [2, 13, 14, 15]

/** No 5xx, and a gRPC status (where there is one) that blames the request, not the server. */
/** The reflection services' one method streams both ways, so it needs HTTP/2. */
const bidiStreaming = /^\/grpc\.reflection\.v1(alpha)?\.ServerReflection\/ServerReflectionInfo(\?|$)/

const notAServerFault = (answer: Answer) => {
  if (answer.status !== undefined) expect(answer.status).toBeLessThan(500)
  if (typeof answer.code === "number" && answer.status !== 404 && answer.status !== 405) {
    expect(serverFaults).not.toContain(answer.code)
  }
  if (answer.code === "internal" || answer.code === "INTERNAL") expect.fail(`internal: ${answer.message}`)
}

/** Refused, in whatever form the style refuses. */
const refusedAnswer = (answer: Answer) => {
  notAServerFault(answer)
  expect(answer.code).not.toBe("ok")
  if (answer.code === 0) expect.fail("gRPC status OK for a request that must be refused")
}

/**
 * One generated request: sent, judged, then the port must still answer /healthz and the database
 * must hold exactly what it held before.
 */
const abuse = (port: Port, send: (urls: ServiceUrls) => Promise<Answer>, judge: (answer: Answer) => void = refusedAnswer) =>
  Effect.gen(function*() {
    const urls = yield* Services
    const before = yield* rowCounts
    const answer = yield* Effect.promise(() => send(urls))
    judge(answer)
    expect(yield* Effect.promise(() => healthz(urls[port]))).toBe(200)
    expect(yield* rowCounts).toEqual(before)
  })

// ---------------------------------------------------------------------------------------------
// Values that are never valid

const uuidShape = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/
const isUuid = (value: unknown) => typeof value === "string" && uuidShape.test(value)

const json = fc.jsonValue({ maxDepth: 3 })

/** Any JSON value but a UUID string: never a valid id. */
const notAnId = json.filter((value) => !isUuid(value))
/** Never a valid optional id either: "" and null mean "none given" for the workflow id. */
const notAWorkflowId = notAnId.filter((value) => value !== "" && value !== null)

const blank = fc
  .array(fc.constantFrom(" ", "\t", "\n", "\r", "\u00a0", "\u2003", "\u3000", "\ufeff"), { maxLength: 8 })
  .map((parts) => parts.join(""))
const tooLong = fc.string({ minLength: 201, maxLength: 260 })
/** Never a valid name: blank, over 200 characters, holding a NUL, or not a string at all. */
const notAName = fc.oneof(
  blank,
  tooLong,
  fc.string({ maxLength: 20 }).map((s) => `${s}\u0000`),
  fc.integer(),
  fc.boolean(),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 })
)

const two = (n: number) => String(n).padStart(2, "0")
const four = (n: number) => String(n).padStart(4, "0")
const year = fc.integer({ min: 1, max: 9999 })
const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0
const stamp = (y: number, m: number, d: number, h = 12, mi = 0, s = 0, zone = "Z") =>
  `${four(y)}-${two(m)}-${two(d)}T${two(h)}:${two(mi)}:${two(s)}${zone}`
/** Never a valid timestamp: days a month does not have, times a day does not have, years out of range, other shapes. */
const notATimestamp = fc.oneof(
  fc.tuple(year, fc.constantFrom(30, 31)).map(([y, d]) => stamp(y, 2, d)),
  year.filter((y) => !isLeap(y)).map((y) => stamp(y, 2, 29)),
  fc.tuple(year, fc.constantFrom(4, 6, 9, 11)).map(([y, m]) => stamp(y, m, 31)),
  fc.tuple(year, fc.integer({ min: 13, max: 99 })).map(([y, m]) => stamp(y, m, 1)),
  fc.tuple(year, fc.integer({ min: 24, max: 99 })).map(([y, h]) => stamp(y, 1, 1, h)),
  fc.tuple(year, fc.integer({ min: 60, max: 99 })).map(([y, mi]) => stamp(y, 1, 1, 0, mi)),
  fc.tuple(year, fc.integer({ min: 60, max: 99 })).map(([y, s]) => stamp(y, 1, 1, 0, 0, s)),
  fc.tuple(year, fc.integer({ min: 24, max: 99 })).map(([y, oh]) => stamp(y, 6, 1, 0, 0, 0, `+${two(oh)}:00`)),
  fc.integer({ min: 10_000, max: 99_999 }).map((y) => `${y}-01-01T00:00:00Z`),
  fc.constant("0000-12-31T23:59:59Z"),
  fc.string({ maxLength: 30 }).filter((s) => !/^\d{4}-\d{2}-\d{2}[Tt]/.test(s)),
  fc.integer(),
  fc.boolean(),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 2 })
)

const start = "2023-11-16T12:00:00Z"
const end = "2024-11-16T12:00:00Z"

const validRequest: Record<Port, () => Record<string, unknown>> = {
  org: () => ({ id: randomUUID(), name: "Acme" }),
  profile: () => ({ id: randomUUID(), fullName: "Ada Lovelace", orgId: randomUUID() }),
  license: () => ({ id: randomUUID(), userId: randomUUID(), start, end }),
  workflow: () => ({ license: { start, end }, org: { name: "Initech" }, profile: { fullName: "Peter Gibbons" } })
}

/** Every field of each create, with values it can never accept. */
const poisonable: Record<Port, ReadonlyArray<readonly [path: ReadonlyArray<string>, poison: fc.Arbitrary<unknown>]>> = {
  org: [[["id"], notAnId], [["name"], notAName]],
  profile: [[["id"], notAnId], [["fullName"], notAName], [["orgId"], notAnId]],
  license: [[["id"], notAnId], [["userId"], notAnId], [["start"], notATimestamp], [["end"], notATimestamp]],
  workflow: [
    [["license", "start"], notATimestamp],
    [["license", "end"], notATimestamp],
    [["org", "name"], notAName],
    [["profile", "fullName"], notAName],
    [["workflowOptions", "workflowId"], notAWorkflowId]
  ]
}

const setPath = (value: Record<string, unknown>, path: ReadonlyArray<string>, replacement: unknown): Record<string, unknown> => {
  const [head, ...rest] = path as [string, ...Array<string>]
  if (rest.length === 0) return { ...value, [head]: replacement }
  const inner = value[head]
  const object = typeof inner === "object" && inner !== null ? inner as Record<string, unknown> : {}
  return { ...value, [head]: setPath(object, rest, replacement) }
}

/** A valid create for `port` with one field replaced by a value it can never accept. */
const poisonedCreate = (port: Port) =>
  fc.constantFrom(...poisonable[port]).chain(([path, poison]) =>
    poison.map((value) => ({ port, path: path.join("."), request: setPath(validRequest[port](), path, value) }))
  )

const anyPoisonedCreate = fc.constantFrom(...ports).chain(poisonedCreate)

/** A random JSON object that is also refused by every create: its id (or workflow org) spoiled. */
const spoiled = (port: Port, value: unknown): unknown =>
  typeof value !== "object" || value === null || Array.isArray(value)
    ? value
    : port === "workflow"
    ? { ...value, org: { name: " " } }
    : { ...value, id: "not-a-uuid" }

// ---------------------------------------------------------------------------------------------
// Sending a JSON request in each JSON style

type JsonStyle = "Connect JSON" | "REST" | "GraphQL" | "Effect RPC"
const jsonStyles: ReadonlyArray<JsonStyle> = ["Connect JSON", "REST", "GraphQL", "Effect RPC"]

const graphqlCreate: Record<Port, string> = {
  org: "mutation($input: CreateOrgInput!) { createOrg(input: $input) { org { id } } }",
  profile: "mutation($input: CreateProfileInput!) { createProfile(input: $input) { profile { id } } }",
  license: "mutation($input: CreateLicenseInput!) { createLicense(input: $input) { license { id } } }",
  workflow: "mutation($input: CreateOnboardingWorkflowInput!) { createOnboardingWorkflow(input: $input) { workflowId } }"
}

const restCreate = (urls: ServiceUrls, port: Port, request: Record<string, unknown>) => {
  if (port === "workflow") return restCall(`${urls.workflow}/workflow/workflows/onboarding`, "POST", JSON.stringify(request))
  const plural = { org: "orgs", profile: "profiles", license: "licenses" }[port]
  // A spoiled id stays in the body, under a fresh valid id in the path, which it contradicts.
  const { id, ...body } = request
  return isUuid(id)
    ? restCall(`${urls[port]}/${plural}/${String(id)}`, "PUT", JSON.stringify(body))
    : restCall(`${urls[port]}/${plural}/${randomUUID()}`, "PUT", JSON.stringify({ ...body, id }))
}

const rpcTags: Record<Port, string> = {
  org: "CreateOrg",
  profile: "CreateProfile",
  license: "CreateLicense",
  workflow: "CreateOnboardingWorkflow"
}

const sendJson = (style: JsonStyle, urls: ServiceUrls, port: Port, request: Record<string, unknown>): Promise<Answer> => {
  switch (style) {
    case "Connect JSON":
      return connectPost(urls[port], methods[port].create, JSON.stringify(request))
    case "REST":
      return restCreate(urls, port, request)
    case "GraphQL":
      return graphqlCall(urls[port], JSON.stringify({ query: graphqlCreate[port], variables: { input: request } }))
    case "Effect RPC":
      return rpcPost(urls[port], rpcRequest(rpcTags[port], request))
  }
}

/** Each port's list (contract §7): its method, REST path, GraphQL field and filter. */
const lists: Record<Port, { readonly rpc: string; readonly path: string; readonly field: string; readonly filter?: string }> = {
  org: { rpc: "ListOrgs", path: "/orgs", field: "orgs" },
  profile: { rpc: "ListProfiles", path: "/profiles", field: "profiles", filter: "orgId" },
  license: { rpc: "ListLicenses", path: "/licenses", field: "licenses", filter: "userId" },
  workflow: { rpc: "ListOnboardingWorkflows", path: "/workflow/workflows/onboarding", field: "onboardingWorkflows", filter: "status" }
}

/** A list request of `port` with one field (size, token or filter) that is never valid. */
const poisonedList = (port: Port) => {
  const filter = lists[port].filter
  const never = [
    fc.oneof(fc.integer({ min: 101 }), fc.integer({ max: -1 })).map((pageSize) => ({ pageSize })),
    // Random text is never base64url of a token's JSON.
    fc.string({ minLength: 1, maxLength: 300 }).map((pageToken) => ({ pageToken })),
    ...(filter === undefined
      ? []
      : [fc.string({ minLength: 1, maxLength: 60 }).filter((value) => !isUuid(value) && value !== "completed").map((value) => ({ [filter]: value }))])
  ]
  return fc.oneof(...never).map((request) => ({ port, request: request as Record<string, unknown> }))
}

const sendList = (style: JsonStyle, urls: ServiceUrls, port: Port, request: Record<string, unknown>): Promise<Answer> => {
  const list = lists[port]
  const service = methods[port].get.split("/")[0]
  switch (style) {
    case "Connect JSON":
      return connectPost(urls[port], `${service}/${list.rpc}`, JSON.stringify(request))
    case "REST":
      return restCall(`${urls[port]}${list.path}?${new URLSearchParams(Object.entries(request).map(([k, v]): [string, string] => [k, String(v)]))}`, "GET")
    case "GraphQL": {
      const filter = list.filter === undefined ? "" : `, $${list.filter}: String`
      const argument = list.filter === undefined ? "" : `, ${list.filter}: $${list.filter}`
      const query = `query($pageSize: Int, $pageToken: String${filter}) {
        ${list.field}(pageSize: $pageSize, pageToken: $pageToken${argument}) { nextPageToken }
      }`
      return graphqlCall(urls[port], JSON.stringify({ query, variables: request }))
    }
    case "Effect RPC":
      return rpcPost(urls[port], rpcRequest(list.rpc, request))
  }
}

// ---------------------------------------------------------------------------------------------
// Protobuf binary

/** Appended to a random message, so that even random bytes that happen to decode are refused. */
const spoilerBytes: Record<Port, Uint8Array> = {
  org: Uint8Array.from([0x0a, 0x01, 0x78]), // id = "x"
  profile: Uint8Array.from([0x0a, 0x01, 0x78]),
  license: Uint8Array.from([0x0a, 0x01, 0x78]),
  workflow: Uint8Array.from([0x1a, 0x02, 0x0a, 0x00]) // org = { name: "" }
}

const randomMessage = fc.tuple(fc.constantFrom(...ports), fc.uint8Array({ maxLength: 96 })).map(([port, bytes]) => ({
  port,
  bytes: Uint8Array.from([...bytes, ...spoilerBytes[port]])
}))

/** A whole gRPC / gRPC-Web body of random bytes: framing, flags and lengths included. */
const randomBody = fc.oneof(
  fc.uint8Array({ maxLength: 64 }),
  // a plausible frame header, then anything
  fc.tuple(fc.constantFrom(0, 1, 0x80, 0xff), fc.integer({ min: 0, max: 200 }), fc.uint8Array({ maxLength: 64 })).map(
    ([flags, length, rest]) => {
      const header = Buffer.alloc(5)
      header[0] = flags
      header.writeUInt32BE(length, 1)
      return Uint8Array.from([...header, ...rest])
    }
  )
)

const seconds = (iso: string) => BigInt(Date.parse(iso) / 1000)
const protoTime = (s: bigint, nanos = 0) => ({ seconds: s, nanos })
/** Timestamps protobuf can carry that the contract refuses: out of the 0001–9999 range, or nanos out of [0, 1e9). */
const notAProtoTimestamp = fc.oneof(
  fc.bigInt({ min: 253_402_300_800n, max: 2n ** 62n }).map((s) => protoTime(s)),
  fc.bigInt({ min: -(2n ** 62n), max: -62_135_596_801n }).map((s) => protoTime(s)),
  fc.integer({ min: 1_000_000_000, max: 2 ** 31 - 1 }).map((n) => protoTime(seconds(start), n)),
  fc.integer({ min: -(2 ** 31), max: -1 }).map((n) => protoTime(seconds(start), n))
)
/** Strings protobuf can carry that are never valid ids or names. */
const notAProtoId = fc.string({ maxLength: 40 }).filter((s) => !isUuid(s))
const notAProtoName = fc.oneof(blank, tooLong, fc.string({ maxLength: 20 }).map((s) => `\u0000${s}`))

const validProto: Record<Port, () => Record<string, unknown>> = {
  org: validRequest.org,
  profile: validRequest.profile,
  license: () => ({ id: randomUUID(), userId: randomUUID(), start: protoTime(seconds(start)), end: protoTime(seconds(end)) }),
  workflow: () => ({
    license: { start: protoTime(seconds(start)), end: protoTime(seconds(end)) },
    org: { name: "Initech" },
    profile: { fullName: "Peter Gibbons" }
  })
}

const protoPoisonable: Record<Port, ReadonlyArray<readonly [ReadonlyArray<string>, fc.Arbitrary<unknown>]>> = {
  org: [[["id"], notAProtoId], [["name"], notAProtoName]],
  profile: [[["id"], notAProtoId], [["fullName"], notAProtoName], [["orgId"], notAProtoId]],
  license: [[["id"], notAProtoId], [["userId"], notAProtoId], [["start"], notAProtoTimestamp], [["end"], notAProtoTimestamp]],
  workflow: [
    [["license", "start"], notAProtoTimestamp],
    [["license", "end"], notAProtoTimestamp],
    [["org", "name"], notAProtoName],
    [["profile", "fullName"], notAProtoName],
    [["workflowOptions", "workflowId"], notAProtoId.filter((s) => s !== "")]
  ]
}

const connectNodeMethod: Record<Port, string> = {
  org: "createOrg",
  profile: "createProfile",
  license: "createLicense",
  workflow: "createOnboardingWorkflow"
}

const forGrpcJs = (value: unknown): unknown =>
  typeof value === "bigint"
    ? String(value)
    : typeof value === "object" && value !== null
    ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, forGrpcJs(v)]))
    : value

// ---------------------------------------------------------------------------------------------

const runs = (numRuns: number) => ({ timeout: 60_000, fastCheck: { numRuns } })

describe(`fuzzing every style (${testDatabaseKind})`, () => {
  layer(inProcessServers({}, SqlServices), { timeout: 120_000, excludeTestServices: true })((it) => {
    const clientFor = connectNodeClients()

    it.effect.prop(
      "random JSON values as request bodies, in every JSON style (100 runs)",
      [
        fc.constantFrom(...jsonStyles, "GraphQL (whole body)" as const, "Effect RPC (whole body)" as const),
        fc.constantFrom(...ports),
        json
      ],
      ([style, port, value]) =>
        abuse(port, (urls) => {
          if (style === "GraphQL (whole body)") return graphqlCall(urls[port], JSON.stringify(value))
          if (style === "Effect RPC (whole body)") return rpcPost(urls[port], JSON.stringify(value))
          const body = spoiled(port, value)
          if (style === "Connect JSON") return connectPost(urls[port], methods[port].create, JSON.stringify(body))
          if (style === "REST") {
            return port === "workflow"
              ? restCall(`${urls.workflow}/workflow/workflows/onboarding`, "POST", JSON.stringify(body))
              : restCall(`${urls[port]}/${port}s/${randomUUID()}`, "PUT", JSON.stringify(body))
          }
          if (style === "GraphQL") {
            return graphqlCall(urls[port], JSON.stringify({ query: graphqlCreate[port], variables: { input: body } }))
          }
          return rpcPost(urls[port], rpcRequest(rpcTags[port], body))
        }),
      runs(100)
    )

    it.effect.prop(
      "valid creates with one field replaced by a value it never accepts, in every JSON style (120 runs)",
      [fc.constantFrom(...jsonStyles), anyPoisonedCreate],
      ([style, { port, request }]) =>
        abuse(port, (urls) => sendJson(style, urls, port, request), (answer) => {
          refusedAnswer(answer)
          // Where the domain refuses it, the style's invalid_argument.
          if (style === "Connect JSON") expect(answer).toMatchObject({ status: 400, code: "invalid_argument" })
          if (style === "REST") expect(answer).toMatchObject({ status: 400, code: 3 })
          if (style === "Effect RPC") expect(answer).toMatchObject({ status: 200, code: "InvalidArgument" })
          if (style === "GraphQL") expect([400, 200]).toContain(answer.status)
        }),
      runs(120)
    )

    it.effect.prop(
      "list requests with a size, token or filter never valid, in every JSON style (80 runs)",
      [fc.constantFrom(...jsonStyles), fc.constantFrom(...ports).chain(poisonedList)],
      ([style, { port, request }]) =>
        abuse(port, (urls) => sendList(style, urls, port, request), (answer) => {
          refusedAnswer(answer)
          if (style === "Connect JSON") expect(answer).toMatchObject({ status: 400, code: "invalid_argument" })
          if (style === "REST") expect(answer).toMatchObject({ status: 400, code: 3 })
          if (style === "Effect RPC") expect(answer).toMatchObject({ status: 200, code: "InvalidArgument" })
          // A size beyond GraphQL's 32-bit Int is refused by GraphQL itself (400).
          if (style === "GraphQL") expect([400, 200]).toContain(answer.status)
        }),
      runs(80)
    )

    it.effect.prop(
      "valid creates with one field replaced by a value it never accepts, over protobuf binary (60 runs)",
      [
        fc.constantFrom(...Object.keys(connectNodeTransports) as Array<ConnectNodeStyle>, "gRPC (@grpc/grpc-js)" as const),
        fc.constantFrom(...ports).chain((port) =>
          fc.constantFrom(...protoPoisonable[port]).chain(([path, poison]) =>
            poison.map((value) => ({ port, request: setPath(validProto[port](), path, value) }))
          )
        )
      ],
      ([style, { port, request }]) =>
        abuse(port, (urls) =>
          style === "gRPC (@grpc/grpc-js)"
            ? grpcJsCall(urls[port], methods[port].create, { message: forGrpcJs(request) as object })
            : connectNodeCall(() => (clientFor(style, port, urls[port]) as any)[connectNodeMethod[port]](request)), (answer) => {
          refusedAnswer(answer)
          expect(answer.code).toBe(3)
        }),
      runs(60)
    )

    it.effect.prop(
      "a period that ends at or before its start, any offsets, in every style (40 runs)",
      [
        fc.constantFrom(...jsonStyles, "gRPC (connect-node)" as const),
        fc.constantFrom("license" as const, "workflow" as const),
        fc.date({ min: new Date("0001-02-01T00:00:00Z"), max: new Date("9999-12-30T00:00:00Z"), noInvalidDate: true }),
        fc.integer({ min: 0, max: 10 ** 9 }),
        fc.integer({ min: -14 * 60, max: 14 * 60 })
      ],
      ([style, port, when, backwards, offsetMinutes]) => {
        const startAt = when.getTime()
        const endAt = startAt - backwards
        // The end written at another offset: the same instant (or earlier) in another zone.
        const zoned = (millis: number, minutes: number) => {
          const local = new Date(millis + minutes * 60_000).toISOString().replace(/Z$/, "")
          const sign = minutes < 0 ? "-" : "+"
          const abs = Math.abs(minutes)
          return `${local}${sign}${two(Math.floor(abs / 60))}:${two(abs % 60)}`
        }
        const startText = new Date(startAt).toISOString()
        const endText = zoned(endAt, offsetMinutes)
        const period = { start: startText, end: endText }
        const expected = port === "license" ? "end: must be after start" : "license.end: must be after license.start"
        return abuse(port, (urls) => {
          if (style === "gRPC (connect-node)") {
            const t = (millis: number) => ({
              seconds: BigInt(Math.floor(millis / 1000)),
              nanos: (((millis % 1000) + 1000) % 1000) * 1e6
            })
            const protoPeriod = { start: t(startAt), end: t(endAt) }
            const request = port === "license"
              ? { id: randomUUID(), userId: randomUUID(), ...protoPeriod }
              : { ...validProto.workflow(), license: protoPeriod }
            return connectNodeCall(() => (clientFor(style, port, urls[port]) as any)[connectNodeMethod[port]](request))
          }
          const request = port === "license"
            ? { ...validRequest.license(), ...period }
            : { ...validRequest.workflow(), license: period }
          return sendJson(style, urls, port, request)
        }, (answer) => {
          refusedAnswer(answer)
          expect(answer.message).toBe(expected)
        })
      },
      runs(40)
    )

    it.effect.prop(
      "random bytes as a binary Connect message (60 runs)",
      [randomMessage, fc.boolean()],
      ([{ bytes, port }, toGet]) =>
        abuse(port, (urls) => {
          const method = toGet ? methods[port].get : methods[port].create
          return connectPost(urls[port], method, bytes, "application/proto")
        }, (answer) => {
          refusedAnswer(answer)
          expect(answer.status).toBeGreaterThanOrEqual(400)
        }),
      runs(60)
    )

    it.effect.prop(
      "random bytes as gRPC: inside a well-formed frame, or as the whole body (80 runs)",
      [randomMessage, randomBody, fc.boolean(), fc.boolean()],
      ([{ bytes, port }, body, framed, toGet]) =>
        abuse(port, (urls) =>
          grpcRaw(
            urls[port],
            toGet || !framed ? methods[port].get : methods[port].create,
            framed ? envelope(bytes) : body
          ), (answer) => {
          notAServerFault(answer)
          // A get of a random id is not found at best; anything else is refused.
          expect([0, undefined]).not.toContain(answer.code)
        }),
      runs(80)
    )

    it.effect.prop(
      "random bytes as gRPC-Web: inside a well-formed frame, or as the whole body (50 runs)",
      [randomMessage, randomBody, fc.boolean()],
      ([{ bytes, port }, body, framed]) =>
        abuse(port, (urls) =>
          grpcWebRaw(
            urls[port],
            framed ? methods[port].create : methods[port].get,
            framed ? envelope(bytes) : body
          ), (answer) => {
          notAServerFault(answer)
          expect([0, undefined]).not.toContain(answer.code)
        }),
      runs(50)
    )

    const segment = fc.oneof(
      fc.constantFrom(
        "orgs",
        "profiles",
        "licenses",
        "workflow",
        "workflows",
        "onboarding",
        "graphql",
        "rpc",
        "healthz",
        "readyz",
        "org.v1beta1.OrgService",
        "workflow.v1beta1.WorkflowService",
        "grpc.health.v1.Health",
        "CreateOrg",
        "GetOrg",
        "CreateOnboardingWorkflow",
        "Check",
        "..",
        "%2e%2e",
        "%00",
        "%ff",
        "",
        "not-a-uuid",
        "6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0g"
      ),
      fc.webSegment()
    )
    const randomPath = fc
      .tuple(fc.array(segment, { minLength: 1, maxLength: 5 }), fc.option(fc.webQueryParameters(), { nil: undefined }))
      .map(([segments, query]) => `/${segments.join("/")}${query === undefined ? "" : `?${query}`}`)
    /** Paths shaped like the real ones, with a wrong piece somewhere. */
    const operationName = fc.oneof(
      fc.constantFrom(
        "CreateOrg", "GetOrg", "CreateProfile", "GetProfile", "CreateLicense", "GetLicense",
        "CreateOnboardingWorkflow", "GetOnboardingWorkflow", "ListOrgs", "ListProfiles", "ListLicenses",
        "ListOnboardingWorkflows", "Check", "Watch", "ServerReflectionInfo"
      ),
      segment
    )
    const resources: ReadonlyArray<readonly [Port, string]> = [
      ["org", "orgs"],
      ["profile", "profiles"],
      ["license", "licenses"],
      ["workflow", "workflow/workflows/onboarding"]
    ]
    const servicesOf: ReadonlyArray<readonly [Port | undefined, string]> = [
      ["org", "org.v1beta1.OrgService"],
      ["profile", "profile.v1beta1.ProfileService"],
      ["license", "license.v1beta1.LicenseService"],
      ["workflow", "workflow.v1beta1.WorkflowService"],
      [undefined, "grpc.health.v1.Health"],
      [undefined, "grpc.reflection.v1.ServerReflection"],
      [undefined, "org.v1beta1.Nope"]
    ]
    /** Paths shaped like the real ones (on their own port, mostly), with a wrong piece somewhere. */
    const nearPath = fc.tuple(
      fc.oneof(
        fc.tuple(fc.constantFrom(...resources), segment).map(([[port, route], piece]) => [port, `/${route}/${piece}`] as const),
        fc.tuple(fc.constantFrom(...servicesOf), operationName)
          .map(([[port, name], method]) => [port, `/${name}/${method}`] as const),
        fc.constantFrom(...resources).map(([port, route]) => [port, `/${route}`] as const),
        fc.constantFrom("/graphql", "/rpc", "/healthz", "/readyz", "/").map((route) => [undefined, route] as const)
      ),
      fc.oneof(
        { weight: 3, arbitrary: fc.constant("") },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            "?", "?query=%7B", "?query=%7B__typename%7D", "?encoding=json&message=%7B%7D", "?encoding=proto&base64=1&message=%25",
            "?encoding=json&message=%7B%22id%22%3A5%7D&connect=v1", "/", "//x", "/.."
          )
        }
      ),
      fc.integer({ min: 0, max: 3 }).map((n) => n === 0) // now and then on another port
    ).map(([[port, route], suffix, elsewhere]) => ({ port: elsewhere ? undefined : port, path: `${route}${suffix}` }))
    const path = fc.oneof(
      { weight: 3, arbitrary: nearPath },
      { weight: 1, arbitrary: randomPath.map((p) => ({ port: undefined, path: p })) }
    )
    const method = fc.constantFrom("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "PROPFIND", "BREW")
    const spoiledBody = fc.oneof(
      fc.constant(undefined),
      json.map((value) => JSON.stringify(spoiled("org", value))),
      anyPoisonedCreate.map(({ request }) => JSON.stringify(request))
    )

    it.effect.prop(
      "random paths and methods (80 runs)",
      [fc.constantFrom(...ports), path, method, spoiledBody],
      ([anyPort, { path: target, port: ownPort }, verb, body]) =>
        abuse(ownPort ?? anyPort, async (urls) => {
          const port = ownPort ?? anyPort
          const withBody = verb !== "GET" && verb !== "HEAD" && body !== undefined
          const reply = await httpCall(`${urls[port]}${target}`, {
            method: verb,
            ...(withBody ? { headers: { "content-type": "application/json" }, body } : {})
          })
          return { status: reply.status, code: reply.json?.code, message: reply.text, body: reply.json }
        }, (answer) => {
          // The Connect protocol answers a bidi-streaming method (reflection) over HTTP/1.1 with
          // 505 HTTP Version Not Supported: the version is refused, nothing failed.
          if (answer.status === 505 && bidiStreaming.test(target)) return
          notAServerFault(answer)
        }),
      runs(80)
    )

    const framing = fc.constantFrom("exact", "short", "chunked", "bad chunks", "length and chunks")
    /** The real routes, each on its own port. */
    const realPath = fc.constantFrom<{ readonly port: Port | undefined; readonly path: string }>(
      ...ports.flatMap((port) => [{ port, path: `/${methods[port].create}` }, { port, path: `/${methods[port].get}` }]),
      { port: undefined, path: "/grpc.health.v1.Health/Check" },
      { port: "org", path: `/orgs/${randomUUID()}` },
      { port: "workflow", path: "/workflow/workflows/onboarding" },
      { port: undefined, path: "/graphql" },
      { port: undefined, path: "/rpc" }
    )
    it.effect.prop(
      "raw HTTP/1.x: either version, with or without Host, honest or lying framing (60 runs)",
      [
        fc.constantFrom(...ports),
        fc.oneof({ weight: 2, arbitrary: realPath }, { weight: 1, arbitrary: path }),
        method,
        fc.constantFrom("HTTP/1.0", "HTTP/1.1"),
        fc.boolean(),
        framing,
        fc.constantFrom("application/json", "application/proto", "application/grpc-web+proto", "text/plain"),
        spoiledBody
      ],
      ([anyPort, { path: target, port: ownPort }, verb, version, withHost, frame, type, body]) => {
        const port = ownPort ?? anyPort
        const content = body ?? ""
        const length = Buffer.byteLength(content)
        const framed = frame === "exact"
          ? { headers: `content-length: ${length}\r\n`, payload: content }
          : frame === "short"
          ? { headers: `content-length: ${Math.floor(length / 2)}\r\n`, payload: content }
          : frame === "chunked"
          ? { headers: "transfer-encoding: chunked\r\n", payload: `${length.toString(16)}\r\n${content}\r\n0\r\n\r\n` }
          : frame === "bad chunks"
          ? { headers: "transfer-encoding: chunked\r\n", payload: `zz\r\n${content}\r\n0\r\n\r\n` }
          : { headers: `content-length: ${length}\r\ntransfer-encoding: chunked\r\n`, payload: content }
        return abuse(port, async (urls) => {
          const host = withHost ? `host: ${new URL(urls[port]).host}\r\n` : ""
          const text = `${verb} ${target} ${version}\r\n${host}content-type: ${type}\r\nconnection: close\r\n${framed.headers}\r\n${framed.payload}`
          return rawHttp(urls[port], text)
        }, (answer) => {
          expect(answer.status).toBeDefined() // an answer, not a dropped connection
          if (answer.status === 505 && bidiStreaming.test(target)) return
          notAServerFault(answer)
        })
      },
      runs(60)
    )

    const contentType = fc.oneof(
      fc.constantFrom(
        "application/json",
        "application/json; charset=utf-8",
        "application/json; charset=latin1",
        "application/proto",
        "application/x-protobuf",
        "application/connect+json",
        "application/connect+proto",
        "application/grpc",
        "application/grpc+json",
        "application/grpc-web",
        "application/grpc-web-text",
        "application/graphql",
        "application/graphql-response+json",
        "application/merge-patch+json",
        "text/plain",
        "text/html",
        "multipart/form-data; boundary=x",
        "application/x-www-form-urlencoded",
        "application/octet-stream",
        "*/*",
        "json"
      ),
      fc.stringMatching(/^[a-z0-9.+-]{1,12}\/[a-z0-9.+-]{1,12}(; ?[a-z]{1,8}=[a-z0-9-]{1,8})?$/)
    )
    const target = fc.constantFrom("Connect", "REST", "GraphQL", "Effect RPC")

    it.effect.prop(
      "random content types over refused bodies (60 runs)",
      [fc.constantFrom(...ports), target, contentType, anyPoisonedCreate, fc.boolean()],
      ([port, to, type, { request }, asBytes]) =>
        abuse(port, async (urls) => {
          // The poisoned create is for some port; sent to `port` it is refused all the more.
          const text = to === "GraphQL"
            ? JSON.stringify({ query: graphqlCreate[port], variables: { input: request } })
            : to === "Effect RPC"
            ? rpcRequest(rpcTags[port], request)
            : JSON.stringify(port === "workflow" ? spoiled("workflow", request) : spoiled(port, request))
          const body = asBytes ? Buffer.from(text) : text
          const url = to === "Connect"
            ? `${urls[port]}/${methods[port].create}`
            : to === "REST"
            ? port === "workflow" ? `${urls.workflow}/workflow/workflows/onboarding` : `${urls[port]}/${port}s/${randomUUID()}`
            : to === "GraphQL"
            ? `${urls[port]}/graphql`
            : `${urls[port]}/rpc`
          const reply = await httpCall(url, {
            method: to === "REST" && port !== "workflow" ? "PUT" : "POST",
            headers: { "content-type": type },
            body
          })
          return { status: reply.status, code: reply.json?.code, message: reply.text, body: reply.json }
        }, notAServerFault),
      runs(60)
    )

    const token = fc.constantFrom(
      "{", "}", "(", ")", "[", "]", ":", "$", "!", "=", ",", "...", "@", "|", "&",
      "query", "mutation", "subscription", "fragment", "on", "schema", "type", "input", "directive", "extend",
      "org", "profile", "license", "onboardingWorkflow", "createOrg", "createProfile", "createLicense",
      "createOnboardingWorkflow", "id", "name", "fullName", "orgId", "start", "end", "userId", "workflowId",
      "input", "__typename", "__schema", "__type", "types", "fields", "@include(if: true)", "@skip(if: $x)", "@deprecated",
      "\"not-a-uuid\"", "\"\"", "\"\"\"block\"\"\"", "\"\\u0000\"", "\"\\ud800\"", "1", "-1.5e3", "true", "null",
      "Acme", "A", "B", "$input", "$id", "ID!", "String", "CreateOrgInput!", "# comment\n", "\n", "\u00a0", "\ufeff"
    )
    const tokenSoup = fc.array(token, { minLength: 1, maxLength: 40 }).map((tokens) => tokens.join(" "))
    /** Documents that parse, more or less, so that validation and execution see them too. */
    const literal = fc.constantFrom(
      "\"not-a-uuid\"", "\"\"", "1", "-1.5", "true", "null", "[\"x\"]", "{id: \"x\"}",
      "$input", "$id", "$nope", "ENUM", "\"\\u0000\""
    )
    const fieldName = fc.constantFrom(
      "org", "profile", "license", "onboardingWorkflow", "createOrg", "createProfile", "createLicense",
      "createOnboardingWorkflow", "id", "name", "fullName", "orgId", "userId", "start", "end", "workflowId", "status",
      "__typename", "__schema", "__type", "types", "nope"
    )
    const argument = fc.oneof(
      fc.tuple(fc.constantFrom("id", "input", "nope", "if"), literal).map(([name, value]) => `${name}: ${value}`),
      fc.tuple(literal, literal, literal).map(([id, name, at]) =>
        `input: {id: ${id}, name: ${name}, fullName: ${name}, start: ${at}, end: ${at}}`
      )
    )
    const { selection } = fc.letrec((tie) => ({
      selection: fc.tuple(
        fc.option(fc.constantFrom("a: ", "b: ", "...F "), { nil: "" }),
        fieldName,
        fc.option(fc.array(argument, { minLength: 1, maxLength: 2 }).map((args) => `(${args.join(", ")})`), { nil: "" }),
        fc.option(fc.constantFrom("@include(if: true)", "@skip(if: false)", "@nope"), { nil: "" }),
        fc.option(tie("selectionSet"), { depthSize: "small", nil: "" })
      ).map((parts) => parts.join(" ")),
      selectionSet: fc.tuple(fc.array(tie("selection"), { minLength: 1, maxLength: 3 }), fc.boolean()).map(([fields, inline]) =>
        inline ? `{ ...on Query { ${fields.join(" ")} } }` : `{ ${fields.join(" ")} }`
      )
    }))
    const parsable = fc.tuple(
      fc.constantFrom(
        "", "query", "mutation", "subscription", "query A", "mutation B($input: CreateOrgInput!)", "query($id: ID!)",
        "query A($id: String)"
      ),
      fc.array(selection, { minLength: 1, maxLength: 3 }),
      fc.option(
        fc.constantFrom(" fragment F on Query { __typename }", " fragment F on Org { ...F }", " query A { __typename }"),
        { nil: "" }
      )
    ).map(([operation, fields, rest]) => `${operation} { ${fields.join(" ")} }${rest}`)
    const document = fc.oneof(tokenSoup, parsable)

    it.effect.prop(
      "GraphQL documents: random tokens, and random documents that parse (120 runs)",
      [
        fc.constantFrom(...ports),
        document,
        fc.option(fc.constantFrom("A", "B", "", "Query"), { nil: undefined }),
        fc.option(json.map((value) => spoiled("org", value)), { nil: undefined }),
        fc.constantFrom(graphqlResponseJson, "application/json", "*/*"),
        fc.boolean()
      ],
      ([port, query, operationName, variables, accept, viaGet]) =>
        abuse(port, async (urls) => {
          if (viaGet) {
            const params = new URLSearchParams({ query, ...(operationName === undefined ? {} : { operationName }) })
            const reply = await httpCall(`${urls[port]}/graphql?${params}`, { headers: { accept } })
            return { status: reply.status, code: reply.json?.errors?.[0]?.extensions?.code, message: reply.text, body: reply.json }
          }
          return graphqlCall(urls[port], JSON.stringify({ query, operationName, variables: { input: variables } }), { accept })
        }, notAServerFault),
      runs(120)
    )

    /** Fragments that each spread the next few, any number of times: small texts, up to ~4^60 fields. */
    const spreadLeaf = fc.constantFrom("__typename", "a: __typename", `org(id: "x") { __typename }`)
    const spreadDag = fc.integer({ min: 8, max: 60 }).chain((count) => {
      const body = (from: number) =>
        fc.array(
          from < count
            ? fc.oneof(spreadLeaf, { arbitrary: fc.integer({ min: from, max: Math.min(count - 1, from + 2) }).map((j) => `...F${j}`), weight: 3 })
            : spreadLeaf,
          { minLength: 2, maxLength: 4 }
        ).map((selections) => selections.join(" "))
      return fc.tuple(body(0), ...Array.from({ length: count }, (_, i) => body(i + 1))).map(([operation, ...fragments]) =>
        [`{ ${operation} }`, ...fragments.map((f, i) => `fragment F${i} on Query { ${f} }`)].join(" ")
      )
    })

    /**
     * What the servers' screens make of a document, worked out here with their code and the bounds
     * they run with (defaultDocumentBounds; GRAPHQL_MAX_DEPTH, GRAPHQL_MAX_FIELDS and GRAPHQL_MAX_CALLS
     * at their defaults): the refusal's message, or undefined where the document passes them. The cost is
     * measured counting its work, which must stay within the document's selections.
     */
    const screened = (query: string): string | undefined => {
      let document: DocumentNode
      try {
        document = boundedParse(defaultDocumentBounds)(query)
      } catch (error) {
        if (error instanceof GraphQLError) return error.message
        throw error
      }
      const { visits, selections } = measuredCosts(document)
      expect(visits).toBeLessThanOrEqual(selections)
      const { graphqlMaxCalls, graphqlMaxDepth, graphqlMaxFields } = defaultSettings
      return limitErrors(document, { maxDepth: graphqlMaxDepth, maxFields: graphqlMaxFields, maxCalls: graphqlMaxCalls })[0]?.message
    }

    it.effect.prop(
      "GraphQL fragment spreads: random DAGs of fragments are refused by the limits they break, or answered (40 runs)",
      [fc.constantFrom(...ports), spreadDag, fc.boolean()],
      ([port, query, viaGet]) =>
        abuse(
          port,
          (urls) => (viaGet ? graphqlGet(urls[port], query) : graphqlCall(urls[port], JSON.stringify({ query }))),
          (answer) => {
            notAServerFault(answer)
            // Not a time (that was the old check, within a second): a document past the limits is refused
            // with their message, so never executed; and the cost behind it is work linear in the text.
            const refusal = screened(query)
            if (refusal === undefined) expect(answer.code).not.toBe("RESOURCE_EXHAUSTED")
            else expect({ code: answer.code, message: answer.message }).toEqual({ code: "RESOURCE_EXHAUSTED", message: refusal })
          }
        ),
      runs(40)
    )

    const frame = fc.record(
      {
        _tag: fc.constantFrom("Request", "Ack", "Interrupt", "Eof", "Ping", "Nope"),
        id: fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.constant(null)),
        requestId: fc.oneof(fc.string({ maxLength: 6 }), fc.integer()),
        tag: fc.oneof(
          fc.constantFrom("CreateOrg", "GetOrg", "CreateProfile", "CreateOnboardingWorkflow", "__proto__"),
          fc.string({ maxLength: 8 })
        ),
        payload: json,
        headers: fc.oneof(fc.constant([]), json),
        traceId: fc.string({ maxLength: 8 })
      },
      { requiredKeys: ["_tag"] }
    )

    it.effect.prop(
      "random @effect/rpc frames; the /rpc endpoint keeps serving afterwards (80 runs)",
      [fc.constantFrom(...ports), fc.oneof(frame, fc.array(frame, { maxLength: 3 }))],
      ([port, frames]) =>
        Effect.gen(function*() {
          // Payloads of creates are spoiled so that no frame can write.
          const spoil = (f: Record<string, unknown>) => ({
            ...f,
            payload: spoiled(port === "workflow" ? "workflow" : "org", f["payload"])
          })
          const body = JSON.stringify(Array.isArray(frames) ? frames.map(spoil) : spoil(frames))
          yield* abuse(port, (urls) => rpcPost(urls[port], body), notAServerFault)
          const urls = yield* Services
          const id = randomUUID()
          const answer = yield* Effect.promise(() => {
            switch (port) {
              case "org":
                return rpcTyped(urls.org, Effect.flatMap(RpcClient.make(OrgOperations), (c) => c.GetOrg({ id })))
              case "profile":
                return rpcTyped(urls.profile, Effect.flatMap(RpcClient.make(ProfileOperations), (c) => c.GetProfile({ id })))
              case "license":
                return rpcTyped(urls.license, Effect.flatMap(RpcClient.make(LicenseOperations), (c) => c.GetLicense({ id })))
              case "workflow":
                return rpcTyped(
                  urls.workflow,
                  Effect.flatMap(RpcClient.make(WorkflowOperations), (c) => c.GetOnboardingWorkflow({ workflowId: id }))
                )
            }
          })
          expect(answer.code).toBe("NotFound")
        }),
      runs(80)
    )

    // -------------------------------------------------------------------------------------------
    // Hostile but valid names: stored and read back verbatim, through another style

    const hostileText = fc.constantFrom(
      "'; drop table orgs; --",
      "Robert'); DROP TABLE profiles;--",
      "\" OR 1=1 --",
      "' OR ''='",
      "1; select pg_sleep(5)",
      "<script>alert(1)</script>",
      "<img src=x onerror=alert(1)>",
      "]]><!--",
      "${jndi:ldap://example/a}",
      "{{7*7}}",
      "%00",
      "%0d%0aSet-Cookie: a=b",
      "\r\nX-Injected: yes",
      "\\u0000",
      "\\",
      "\\\\\"",
      "'\"`",
      "C:\\Windows\\System32",
      "../../etc/passwd",
      "__proto__",
      "constructor",
      "{\"$ne\": 1}",
      "null",
      "undefined",
      "NaN",
      "",
      "Ünïcödé ñ",
      "日本語の名前",
      "مرحبا بالعالم",
      "\u202Eevil\u202C",
      "👩‍👩‍👧‍👦",
      "e\u0301",
      "\u200B",
      "𝕬𝖈𝖒𝖊",
      "line\nbreak",
      "tab\there",
      "#{x}",
      "$1",
      "'; --",
      "\" }) { __typename } #"
    )
    const validName = Schema.is(Name)
    const hostileName = fc
      .array(
        fc.oneof(
          { weight: 3, arbitrary: hostileText },
          { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 12 }) }
        ),
        { minLength: 1, maxLength: 5 }
      )
      .map((parts) => parts.join(""))
      .filter(validName)

    type Style = "Connect JSON" | "REST" | "GraphQL" | "Effect RPC" | ConnectNodeStyle | "gRPC (@grpc/grpc-js)"
    const styles: ReadonlyArray<Style> = [
      ...jsonStyles,
      ...Object.keys(connectNodeTransports) as Array<ConnectNodeStyle>,
      "gRPC (@grpc/grpc-js)"
    ]
    type OrgPayload = { id: string; name: string }
    type ProfilePayload = { id: string; fullName: string; orgId: string }

    type Kind = "org" | "profile"
    const fieldOf = { org: "name", profile: "fullName" } as const
    const record = (kind: Kind, id: string, name: string) =>
      kind === "org" ? { id, name } : { id, fullName: name, orgId: "6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b" }

    const write = async (style: Style, urls: ServiceUrls, kind: Kind, id: string, name: string): Promise<Answer> => {
      const value = record(kind, id, name)
      switch (style) {
        case "Connect JSON":
        case "REST":
        case "GraphQL":
          return sendJson(style, urls, kind, value)
        case "Effect RPC":
          return kind === "org"
            ? rpcTyped(urls.org, Effect.flatMap(RpcClient.make(OrgOperations), (c) => c.CreateOrg(value as OrgPayload)))
            : rpcTyped(
              urls.profile,
              Effect.flatMap(RpcClient.make(ProfileOperations), (c) => c.CreateProfile(value as ProfilePayload))
            )
        case "gRPC (@grpc/grpc-js)":
          return grpcJsCall(urls[kind], methods[kind].create, { message: value })
        default:
          return connectNodeCall(() => (clientFor(style, kind, urls[kind]) as any)[connectNodeMethod[kind]](value))
      }
    }

    /** The stored name, as `style` reads it back. */
    const read = async (style: Style, urls: ServiceUrls, kind: Kind, id: string): Promise<unknown> => {
      const field = fieldOf[kind]
      switch (style) {
        case "Connect JSON":
          return ((await connectPost(urls[kind], methods[kind].get, JSON.stringify({ id }))).body as any)?.[kind]?.[field]
        case "REST":
          return ((await restCall(`${urls[kind]}/${kind}s/${id}`, "GET")).body as any)?.[kind]?.[field]
        case "GraphQL": {
          const query = `query($id: ID!) { ${kind}(id: $id) { ${kind} { ${field} } } }`
          const answer = await graphqlCall(urls[kind], JSON.stringify({ query, variables: { id } }))
          return (answer.body as any)?.data?.[kind]?.[kind]?.[field]
        }
        case "Effect RPC": {
          const answer = kind === "org"
            ? await rpcTyped(urls.org, Effect.flatMap(RpcClient.make(OrgOperations), (c) => c.GetOrg({ id })))
            : await rpcTyped(urls.profile, Effect.flatMap(RpcClient.make(ProfileOperations), (c) => c.GetProfile({ id })))
          return (answer.body as any)?.[field]
        }
        case "gRPC (@grpc/grpc-js)":
          return ((await grpcJsCall(urls[kind], methods[kind].get, { message: { id } })).body as any)?.[kind]?.[field]
        default: {
          const client = clientFor(style, kind, urls[kind]) as any
          const answer = await connectNodeCall(() => client[kind === "org" ? "getOrg" : "getProfile"]({ id }))
          return (answer.body as any)?.[kind]?.[field]
        }
      }
    }

    it.effect.prop(
      "hostile names are stored verbatim and read back whole through another style (100 runs)",
      [fc.constantFrom<Kind>("org", "profile"), hostileName, fc.constantFrom(...styles), fc.constantFrom(...styles)],
      ([kind, name, writer, reader]) =>
        Effect.gen(function*() {
          const urls = yield* Services
          const sql = yield* SqlClient.SqlClient
          const id = randomUUID()
          const before = yield* rowCounts
          const created = yield* Effect.promise(() => write(writer, urls, kind, id, name))
          expect({ writer, code: created.code, message: created.message }).toEqual({ writer, code: "ok", message: "" })
          expect({ reader, name: yield* Effect.promise(() => read(reader, urls, kind, id)) }).toEqual({ reader, name })
          const stored = kind === "org"
            ? yield* sql<{ text: string }>`select name as text from orgs where id = ${id}`
            : yield* sql<{ text: string }>`select full_name as text from profiles where id = ${id}`
          expect(stored.map((row) => row.text)).toEqual([name])
          const after = yield* rowCounts
          const table = kind === "org" ? "orgs" : "profiles"
          expect(after).toEqual({ ...before, [table]: before[table] + 1 })
          // A retry with the same content is the same record, not a conflict.
          expect((yield* Effect.promise(() => write(reader, urls, kind, id, name))).code).toBe("ok")
        }),
      runs(100)
    )
  })
})
