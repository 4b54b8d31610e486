import { RpcClient } from "@effect/rpc"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { pageQuery } from "../../src/domain/Page.js"
import { CanonicalTimestamp } from "../../src/domain/Timestamp.js"
import { CreateOrgRequestSchema } from "../../src/gen/org/v1beta1/org_pb.js"
import { LicenseOperations } from "../../src/contract/LicenseOperations.js"
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
  connectNodeCall,
  connectNodeClients,
  type ConnectNodeStyle,
  connectNodeTransports,
  connectPost,
  connectStream,
  envelope,
  graphqlCall,
  graphqlGet,
  grpcJsCall,
  grpcRaw,
  grpcWebRaw,
  healthz,
  type Port,
  protoBytes,
  rawHttp,
  restCall,
  rpcPost,
  rpcRequest,
  rpcTyped
} from "./support/wire.js"

/**
 * Bad input in every access style (contract §2–§8): each request below must be refused with the
 * style's form of the error table's code, a message that names the field at fault, nothing
 * written (row counts unchanged) and the port still answering /healthz. A JSON field the message
 * does not have is one of them (contract §3.2); an unknown protobuf field number is not: binary
 * protobuf skips it, and the call succeeds.
 */

// ---------------------------------------------------------------------------------------------
// Expectations

/** What a refusal must look like in one style: status (where the style has one), code, message. */
interface Want {
  readonly status?: number | undefined
  readonly code: string | number | undefined
  readonly message: string | RegExp
  /** GraphQL's own refusal of a value: the field its one violation names (`extensions.fieldViolations`, contract §8). */
  readonly field?: string
}

const rfc3339 = "must be an RFC 3339 timestamp between 0001-01-01 and 9999-12-31, e.g. 2023-11-16T12:00:00Z"
const notUuid = (field: string) => `${field}: must be a UUID (8-4-4-4-12 hex digits)`
const badTime = (field: string) => `${field}: ${rfc3339}`

/** The invalid_argument row of contract §8, in each style's form. */
/** connect-node's bodiless 415 and 405, answered with a Connect error body (ConnectNodeAdapter.ts). */
const unsupported = (message: string | RegExp): Want => ({ status: 415, code: "invalid_argument", message })
const notAllowed = (message: string | RegExp): Want => ({ status: 405, code: "unimplemented", message })

const invalid = {
  connect: (message: string | RegExp): Want => ({ status: 400, code: "invalid_argument", message }),
  grpc: (message: string | RegExp): Want => ({ code: 3, message }),
  grpcWeb: (message: string | RegExp): Want => ({ status: 200, code: 3, message }),
  rest: (message: string | RegExp): Want => ({ status: 400, code: 3, message }),
  graphql: (message: string | RegExp): Want => ({ status: 200, code: "INVALID_ARGUMENT", message }),
  /** A request GraphQL itself cannot execute (GraphQL-over-HTTP: 400 with graphql-response+json). */
  graphqlRequest: (message: string | RegExp): Want => ({ status: 400, code: undefined, message }),
  /** An argument or variable graphql-js refuses before any resolver: a request error, with its code and violation. */
  graphqlInput: (message: string | RegExp, field: string): Want => ({ status: 400, code: "INVALID_ARGUMENT", message, field }),
  rpc: (message: string | RegExp): Want => ({ code: "InvalidArgument", message })
}

const stackTrace = /\bat .+\.(ts|js):\d+/

const check = (answer: Answer, want: Want) => {
  expect({ status: want.status === undefined ? undefined : answer.status, code: answer.code }).toEqual({
    status: want.status,
    code: want.code
  })
  if (want.field !== undefined) {
    const [error] = (answer.body as { errors: Array<{ extensions?: { fieldViolations?: Array<{ field: string }> } }> }).errors
    expect(error?.extensions?.fieldViolations?.map((each) => each.field)).toEqual([want.field])
  }
  if (want.message instanceof RegExp) expect(answer.message).toMatch(want.message)
  else expect(answer.message).toBe(want.message)
  expect(`${answer.message} ${JSON.stringify(answer.body ?? null)}`).not.toMatch(stackTrace)
}

/** Each style's error body has the contract's shape, whatever the error. */
const detailTypes = ["google.rpc.BadRequest", "google.rpc.ResourceInfo"]
const shapes = {
  connect: (answer: Answer) => {
    if (answer.body === undefined) return
    const { details = [], ...body } = answer.body as { details?: Array<{ type: string }> }
    expect(Object.keys(body).sort()).toEqual(["code", "message"])
    for (const detail of details) expect(detailTypes).toContain(detail.type)
  },
  rest: (answer: Answer) => {
    const { details, ...body } = answer.body as { details: Array<{ "@type": string }> }
    expect(body).toEqual({ code: answer.code, message: answer.message })
    for (const detail of details) expect(detailTypes.map((type) => `type.googleapis.com/${type}`)).toContain(detail["@type"])
  },
  graphqlField: (field: string) => (answer: Answer) => {
    const body = answer.body as { data: unknown; errors: Array<{ path?: Array<string> }> }
    expect(body.errors).toHaveLength(1)
    expect(body.errors[0]!.path).toEqual([field])
    // A mutation's field is non-null, so its error nulls `data`; a query's nullable field is null.
    expect([null, { [field]: null }]).toContainEqual(body.data)
  },
  graphqlRequest: (answer: Answer) => expect((answer.body as { data?: unknown }).data).toBeUndefined()
}

// ---------------------------------------------------------------------------------------------
// The matrix's plumbing

interface Case {
  readonly title: string
  readonly port: Port
  readonly send: (urls: ServiceUrls) => Promise<Answer>
  readonly want: Want
  readonly shape?: (answer: Answer) => void
}

const cases: Array<Case> = []
const add = (style: string, name: string, port: Port, send: Case["send"], want: Want, shape?: Case["shape"]) =>
  cases.push({ title: `${style}: ${name}`, port, send, want, ...(shape === undefined ? {} : { shape }) })

const refused = (c: Case) =>
  Effect.gen(function*() {
    const urls = yield* Services
    const before = yield* rowCounts
    const answer = yield* Effect.promise(() => c.send(urls))
    check(answer, c.want)
    c.shape?.(answer)
    expect(yield* rowCounts).toEqual(before)
    expect(yield* Effect.promise(() => healthz(urls[c.port]))).toBe(200)
  })

const start = "2023-11-16T12:00:00Z"
const end = "2024-11-16T12:00:00Z"
const startSeconds = 1_700_136_000n
const endSeconds = 1_731_758_400n
const at = (seconds: bigint, nanos = 0) => ({ seconds, nanos })
const id = () => randomUUID()

// ---------------------------------------------------------------------------------------------
// Operations: how each style says each call

type OperationName =
  | "createOrg"
  | "getOrg"
  | "createProfile"
  | "getProfile"
  | "createLicense"
  | "getLicense"
  | "createWorkflow"
  | "getWorkflow"
  | "listOrgs"
  | "listProfiles"
  | "listLicenses"
  | "listWorkflows"

type Json = Record<string, unknown>

interface Operation {
  readonly port: Port
  /** `package.Service/Method` */
  readonly method: string
  /** The connect-node client's method. */
  readonly client: string
  readonly rpc: { readonly group: any; readonly tag: string }
  readonly rest: (json: Json) => { readonly method: string; readonly path: string; readonly body?: Json }
  readonly graphql: { readonly field: string; readonly query: string; readonly variables: (json: Json) => Json }
}

const withoutId = ({ id: _id, ...rest }: Json) => rest

/** A list request's fields as REST query parameters. */
const queryOf = (json: Json) => {
  const parameters = new URLSearchParams(Object.entries(json).map(([name, value]): [string, string] => [name, String(value)])).toString()
  return parameters === "" ? "" : `?${parameters}`
}

/** A list operation (contract §7) in every style; `filter` is its filter's name, if it has one. */
const listOperation = (
  port: Port,
  service: string,
  name: string,
  path: string,
  field: string,
  filter?: string
): Operation => ({
  port,
  method: `${service}/${name}`,
  client: `${name[0]!.toLowerCase()}${name.slice(1)}`,
  rpc: { group: { OrgService: OrgOperations, ProfileService: ProfileOperations, LicenseService: LicenseOperations, WorkflowService: WorkflowOperations }[service.split(".")[2]!], tag: name },
  rest: (json) => ({ method: "GET", path: `${path}${queryOf(json)}` }),
  graphql: {
    field,
    query: filter === undefined
      ? `query($pageSize: Int, $pageToken: String) { ${field}(pageSize: $pageSize, pageToken: $pageToken) { nextPageToken } }`
      : `query($pageSize: Int, $pageToken: String, $${filter}: String) {
          ${field}(pageSize: $pageSize, pageToken: $pageToken, ${filter}: $${filter}) { nextPageToken }
        }`,
    variables: (json) => json
  }
})

const operations: Record<OperationName, Operation> = {
  createOrg: {
    port: "org",
    method: "org.v1beta1.OrgService/CreateOrg",
    client: "createOrg",
    rpc: { group: OrgOperations, tag: "CreateOrg" },
    rest: (json) => ({ method: "PUT", path: `/orgs/${String(json["id"])}`, body: withoutId(json) }),
    graphql: {
      field: "createOrg",
      query: "mutation($input: CreateOrgInput!) { createOrg(input: $input) { org { id name } } }",
      variables: (json) => ({ input: json })
    }
  },
  getOrg: {
    port: "org",
    method: "org.v1beta1.OrgService/GetOrg",
    client: "getOrg",
    rpc: { group: OrgOperations, tag: "GetOrg" },
    rest: (json) => ({ method: "GET", path: `/orgs/${String(json["id"])}` }),
    graphql: {
      field: "org",
      query: "query($id: ID!) { org(id: $id) { org { id } } }",
      variables: (json) => ({ id: json["id"] })
    }
  },
  createProfile: {
    port: "profile",
    method: "profile.v1beta1.ProfileService/CreateProfile",
    client: "createProfile",
    rpc: { group: ProfileOperations, tag: "CreateProfile" },
    rest: (json) => ({ method: "POST", path: `/profiles/${String(json["id"])}`, body: withoutId(json) }),
    graphql: {
      field: "createProfile",
      query: "mutation($input: CreateProfileInput!) { createProfile(input: $input) { profile { id } } }",
      variables: (json) => ({ input: json })
    }
  },
  getProfile: {
    port: "profile",
    method: "profile.v1beta1.ProfileService/GetProfile",
    client: "getProfile",
    rpc: { group: ProfileOperations, tag: "GetProfile" },
    rest: (json) => ({ method: "GET", path: `/profiles/${String(json["id"])}` }),
    graphql: {
      field: "profile",
      query: "query($id: ID!) { profile(id: $id) { profile { id } } }",
      variables: (json) => ({ id: json["id"] })
    }
  },
  createLicense: {
    port: "license",
    method: "license.v1beta1.LicenseService/CreateLicense",
    client: "createLicense",
    rpc: { group: LicenseOperations, tag: "CreateLicense" },
    rest: (json) => ({ method: "PUT", path: `/licenses/${String(json["id"])}`, body: withoutId(json) }),
    graphql: {
      field: "createLicense",
      query: "mutation($input: CreateLicenseInput!) { createLicense(input: $input) { license { id } } }",
      variables: (json) => ({ input: json })
    }
  },
  getLicense: {
    port: "license",
    method: "license.v1beta1.LicenseService/GetLicense",
    client: "getLicense",
    rpc: { group: LicenseOperations, tag: "GetLicense" },
    rest: (json) => ({ method: "GET", path: `/licenses/${String(json["id"])}` }),
    graphql: {
      field: "license",
      query: "query($id: ID!) { license(id: $id) { license { id } } }",
      variables: (json) => ({ id: json["id"] })
    }
  },
  createWorkflow: {
    port: "workflow",
    method: "workflow.v1beta1.WorkflowService/CreateOnboardingWorkflow",
    client: "createOnboardingWorkflow",
    rpc: { group: WorkflowOperations, tag: "CreateOnboardingWorkflow" },
    rest: (json) => ({ method: "POST", path: "/workflow/workflows/onboarding", body: json }),
    graphql: {
      field: "createOnboardingWorkflow",
      query:
        "mutation($input: CreateOnboardingWorkflowInput!) { createOnboardingWorkflow(input: $input) { workflowId } }",
      variables: (json) => ({ input: json })
    }
  },
  getWorkflow: {
    port: "workflow",
    method: "workflow.v1beta1.WorkflowService/GetOnboardingWorkflow",
    client: "getOnboardingWorkflow",
    rpc: { group: WorkflowOperations, tag: "GetOnboardingWorkflow" },
    rest: (json) => ({ method: "GET", path: `/workflow/workflows/onboarding/${String(json["workflowId"])}` }),
    graphql: {
      field: "onboardingWorkflow",
      query: "query($id: ID!) { onboardingWorkflow(id: $id) { workflowId } }",
      variables: (json) => ({ id: json["workflowId"] })
    }
  },
  listOrgs: listOperation("org", "org.v1beta1.OrgService", "ListOrgs", "/orgs", "orgs"),
  listProfiles: listOperation("profile", "profile.v1beta1.ProfileService", "ListProfiles", "/profiles", "profiles", "orgId"),
  listLicenses: listOperation("license", "license.v1beta1.LicenseService", "ListLicenses", "/licenses", "licenses", "userId"),
  listWorkflows: listOperation(
    "workflow",
    "workflow.v1beta1.WorkflowService",
    "ListOnboardingWorkflows",
    "/workflow/workflows/onboarding",
    "onboardingWorkflows",
    "status"
  )
}

// ---------------------------------------------------------------------------------------------
// Invalid values, one request each, said in every style that can say them

type Family = "connectJson" | "binary" | "rest" | "graphql" | "rpc"

interface ValueCase {
  readonly name: string
  readonly op: OperationName
  /** The request as proto3 JSON (lowerCamel names); absent when only protobuf binary can say it. */
  readonly json?: Json
  /** The request as a protobuf message (Timestamps as seconds and nanos); absent when binary cannot say it. */
  readonly proto?: Json
  /** The refusal's message, the same in every style unless `per` says otherwise. */
  readonly message: string | RegExp
  /** A style family's own answer: another Want, "skip" where the style cannot say the request. */
  readonly per?: Partial<Record<Family, Want | "skip">>
}

const org = () => ({ id: id(), name: "Acme" })
const profile = () => ({ id: id(), fullName: "Ada Lovelace", orgId: id() })
const license = () => ({ id: id(), userId: id(), start, end })
const licenseProto = () => ({ id: id(), userId: id(), start: at(startSeconds), end: at(endSeconds) })
const workflow = () => ({ license: { start, end }, org: { name: "Initech" }, profile: { fullName: "Peter Gibbons" } })
const workflowProto = () => ({
  license: { start: at(startSeconds), end: at(endSeconds) },
  org: { name: "Initech" },
  profile: { fullName: "Peter Gibbons" }
})
const noPath = { status: 404, code: 5, message: "no such path on this port" }

/** A next-page token as the service writes it, for `list` under `filter`. */
const tokenFor = (list: string, filter?: string) =>
  pageQuery(list, {}, filter).tokenAfter({ createdAt: CanonicalTimestamp.make(start), id: id() })
const pageSizeRule = "pageSize: must be between 1 and 100 (0 or absent means 20)"

const valueCases: Array<ValueCase> = [
  // lists (contract §7)
  { name: "a page size above 100", op: "listOrgs", json: { pageSize: 101 }, message: pageSizeRule },
  { name: "a negative page size", op: "listProfiles", json: { pageSize: -1 }, message: pageSizeRule },
  {
    name: "a page size that is not a number",
    op: "listLicenses",
    json: { pageSize: "ten" },
    message: "pageSize: must be a number",
    per: {
      connectJson: invalid.connect("pageSize: must be a whole number from -2147483648 to 2147483647"),
      graphql: invalid.graphqlInput(/Int cannot represent non-integer value: "ten"/, "pageSize"),
      binary: "skip"
    }
  },
  {
    name: "a page token that is not one",
    op: "listLicenses",
    json: { pageToken: "not-a-token" },
    message: "pageToken: must be a nextPageToken from an earlier answer of this list"
  },
  {
    name: "a page token made for another filter",
    op: "listProfiles",
    json: { orgId: id(), pageToken: tokenFor("profiles", id()) },
    message: "pageToken: was made for another filter: list again from the first page"
  },
  {
    name: "a page token made without the filter",
    op: "listLicenses",
    json: { userId: id(), pageToken: tokenFor("licenses") },
    message: "pageToken: was made for another filter: list again from the first page"
  },
  {
    name: "a page token of another list",
    op: "listOrgs",
    json: { pageToken: tokenFor("workflows") },
    message: "pageToken: was made for another list, not orgs"
  },
  { name: "an org filter that is not a UUID", op: "listProfiles", json: { orgId: "acme" }, message: notUuid("orgId") },
  { name: "a user filter that is not a UUID", op: "listLicenses", json: { userId: "x" }, message: notUuid("userId") },
  {
    name: "an unknown status",
    op: "listWorkflows",
    json: { status: "running" },
    message: "status: must be one of: completed"
  },
  {
    name: "every rule broken at once",
    op: "listProfiles",
    json: { pageSize: 500, pageToken: "x", orgId: "y" },
    message: [
      pageSizeRule,
      "pageToken: must be a nextPageToken from an earlier answer of this list",
      notUuid("orgId")
    ].join("; ")
  },
  // ids
  { name: "a non-UUID id", op: "createOrg", json: { ...org(), id: "not-a-uuid" }, message: notUuid("id") },
  {
    name: "an empty id",
    op: "createOrg",
    json: { ...org(), id: "" },
    message: notUuid("id"),
    // PUT /orgs/ names no resource: it is the list's path (the router ignores a trailing slash).
    per: { rest: { status: 405, code: 12, message: "method not allowed; use GET" } }
  },
  { name: "the id left out", op: "createOrg", json: { name: "Acme" }, message: "id: is missing", per: {
    connectJson: invalid.connect(notUuid("id")), // proto3: an absent string is ""
    binary: invalid.grpc(notUuid("id")),
    rest: "skip", // the path carries the id
    graphql: invalid.graphqlInput(/Field "id" of required type "ID!" was not provided/, "id")
  } },
  { name: "a non-UUID id", op: "getOrg", json: { id: "not-a-uuid" }, message: notUuid("id") },
  // GET /orgs/ is the list of orgs (the router ignores a trailing slash), not a get.
  { name: "an empty id", op: "getOrg", json: { id: "" }, message: notUuid("id"), per: { rest: "skip" } },
  {
    name: "a UUID with a non-hex digit",
    op: "getOrg",
    json: { id: "6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0g" },
    message: notUuid("id")
  },
  {
    name: "a UUID without its dashes",
    op: "getProfile",
    json: { id: randomUUID().replaceAll("-", "") },
    message: notUuid("id")
  },
  { name: "a UUID in braces", op: "getLicense", json: { id: `{${randomUUID()}}` }, message: notUuid("id") },
  { name: "a non-UUID orgId", op: "createProfile", json: { ...profile(), orgId: "acme" }, message: notUuid("orgId") },
  {
    name: "an empty userId",
    op: "createLicense",
    json: { ...license(), userId: "" },
    proto: { ...licenseProto(), userId: "" },
    message: notUuid("userId")
  },
  {
    name: "a non-UUID workflow id",
    op: "createWorkflow",
    json: { ...workflow(), workflowOptions: { workflowId: "nope" } },
    proto: { ...workflowProto(), workflowOptions: { workflowId: "nope" } },
    message: notUuid("workflowOptions.workflowId")
  },
  {
    name: "a non-UUID run id",
    op: "getWorkflow",
    json: { workflowId: "nope" },
    message: notUuid("workflowId"),
    per: { rest: invalid.rest(notUuid("id")), graphql: invalid.graphql(notUuid("id")) } // their argument is `id`
  },
  // names
  { name: "a blank name", op: "createOrg", json: { ...org(), name: "   " }, message: "name: must not be blank" },
  { name: "an empty name", op: "createOrg", json: { ...org(), name: "" }, message: "name: must not be blank" },
  {
    name: "a 201-character name",
    op: "createOrg",
    json: { ...org(), name: "n".repeat(201) },
    message: "name: must be at most 200 characters"
  },
  {
    name: "a name of 201 characters outside the BMP (402 UTF-16 units)",
    op: "createOrg",
    json: { ...org(), name: "🙂".repeat(201) },
    message: "name: must be at most 200 characters"
  },
  {
    name: "a NUL character in the name",
    op: "createOrg",
    json: { ...org(), name: "a\u0000b" },
    message: "name: must not contain control characters"
  },
  {
    name: "a lone surrogate in the name",
    op: "createOrg",
    json: { ...org(), name: "a\ud800b" },
    message: "name: must be valid Unicode text (no lone surrogates)",
    per: {
      connectJson: invalid.connect(/CreateOrgRequest\.name from JSON: .*invalid UTF8/),
      binary: "skip" // protobuf strings are UTF-8: a client cannot send one
    }
  },
  { name: "the name left out", op: "createOrg", json: { id: id() }, message: "name: is missing", per: {
    connectJson: invalid.connect("name: must not be blank"),
    binary: invalid.grpc("name: must not be blank"),
    graphql: invalid.graphqlInput(/Field "name" of required type "String!" was not provided/, "name")
  } },
  {
    name: "a whitespace-only fullName",
    op: "createProfile",
    json: { ...profile(), fullName: "\t \n" },
    message: "fullName: must not be blank"
  },
  {
    name: "a 201-character fullName",
    op: "createProfile",
    json: { ...profile(), fullName: "é".repeat(201) },
    message: "fullName: must be at most 200 characters"
  },
  {
    name: "snake_case fields that break the rules (the message uses the JSON names)",
    op: "createProfile",
    json: { id: id(), full_name: " ", org_id: "acme" },
    message: `fullName: must not be blank; ${notUuid("orgId")}`,
    per: { binary: "skip", graphql: "skip", rpc: "skip" } // only proto3 JSON knows both spellings
  },
  {
    name: "a blank org name and a 201-character full name",
    op: "createWorkflow",
    json: { ...workflow(), org: { name: " " }, profile: { fullName: "p".repeat(201) } },
    proto: { ...workflowProto(), org: { name: " " }, profile: { fullName: "p".repeat(201) } },
    message: "org.name: must not be blank; profile.fullName: must be at most 200 characters"
  },
  // timestamps
  {
    name: "a start on February 30th",
    op: "createLicense",
    json: { ...license(), start: "2023-02-30T00:00:00Z" },
    message: badTime("start"),
    per: { binary: "skip" } // a protobuf Timestamp is seconds and nanos: no calendar to get wrong
  },
  {
    name: "a start on February 29th of a common year",
    op: "createLicense",
    json: { ...license(), start: "2023-02-29T12:00:00Z" },
    message: badTime("start"),
    per: { binary: "skip" }
  },
  {
    name: "a start at 24:00",
    op: "createLicense",
    json: { ...license(), start: "2023-11-16T24:00:00Z" },
    message: badTime("start"),
    per: { binary: "skip" }
  },
  {
    name: "a start with an offset of +24:00",
    op: "createLicense",
    json: { ...license(), start: "2023-11-16T12:00:00+24:00" },
    message: badTime("start"),
    per: { binary: "skip" }
  },
  {
    name: "a start that is not RFC 3339 (a space, no offset)",
    op: "createLicense",
    json: { ...license(), start: "2023-11-16 12:00:00" },
    message: badTime("start"),
    per: { binary: "skip" }
  },
  {
    name: "a start in words",
    op: "createLicense",
    json: { ...license(), start: "yesterday" },
    message: badTime("start"),
    per: { binary: "skip" }
  },
  {
    name: "an end in the year 10000",
    op: "createLicense",
    json: { ...license(), end: "10000-01-01T00:00:00Z" },
    proto: { ...licenseProto(), end: at(253_402_300_800n) },
    message: badTime("end")
  },
  {
    name: "a start before the year 1",
    op: "createLicense",
    json: { ...license(), start: "0000-12-31T23:59:59Z" },
    proto: { ...licenseProto(), start: at(-62_135_596_801n) },
    message: badTime("start")
  },
  {
    name: "nanos of a whole second or more",
    op: "createLicense",
    proto: { ...licenseProto(), start: at(startSeconds, 1_000_000_000) },
    message: badTime("start")
  },
  {
    name: "negative nanos",
    op: "createLicense",
    proto: { ...licenseProto(), start: at(startSeconds, -1) },
    message: badTime("start")
  },
  {
    name: "end equal to start",
    op: "createLicense",
    json: { ...license(), end: start },
    proto: { ...licenseProto(), end: at(startSeconds) },
    message: "end: must be after start"
  },
  {
    name: "end before start",
    op: "createLicense",
    json: { ...license(), start: end, end: start },
    proto: { ...licenseProto(), start: at(endSeconds), end: at(startSeconds) },
    message: "end: must be after start"
  },
  {
    name: "end equal to start written with another offset",
    op: "createLicense",
    json: { ...license(), end: "2023-11-16T13:00:00+01:00" },
    message: "end: must be after start",
    per: { binary: "skip" }
  },
  {
    name: "end one nanosecond after start (equal at the stored microsecond precision)",
    op: "createLicense",
    json: { ...license(), end: "2023-11-16T12:00:00.000000001Z" },
    proto: { ...licenseProto(), end: at(startSeconds, 1) },
    message: "end: must be after start"
  },
  {
    name: "start left out",
    op: "createLicense",
    json: { id: id(), userId: id(), end },
    proto: { id: id(), userId: id(), end: at(endSeconds) },
    message: "start: is missing",
    per: { graphql: invalid.graphqlInput(/Field "start" of required type "String!" was not provided/, "start") }
  },
  {
    name: "every rule broken at once",
    op: "createLicense",
    json: { id: "x", userId: "", start: "2023-02-30T00:00:00Z", end: "nope" },
    message: `${notUuid("id")}; ${notUuid("userId")}; ${badTime("start")}; ${badTime("end")}`,
    per: {
      // Connect JSON checks timestamps before decoding (their calendar is lost after it).
      connectJson: invalid.connect(`${badTime("start")}; ${badTime("end")}`),
      binary: "skip"
    }
  },
  {
    name: "end equal to start",
    op: "createWorkflow",
    json: { ...workflow(), license: { start, end: start } },
    proto: { ...workflowProto(), license: { start: at(startSeconds), end: at(startSeconds) } },
    message: "license.end: must be after license.start"
  },
  {
    name: "end before start",
    op: "createWorkflow",
    json: { ...workflow(), license: { start: end, end: start } },
    proto: { ...workflowProto(), license: { start: at(endSeconds), end: at(startSeconds) } },
    message: "license.end: must be after license.start"
  },
  {
    name: "a license start on February 30th",
    op: "createWorkflow",
    json: { ...workflow(), license: { start: "2024-02-30T00:00:00Z", end } },
    message: badTime("license.start"),
    per: { binary: "skip" }
  },
  {
    name: "a license end at a leap second",
    op: "createWorkflow",
    json: { ...workflow(), license: { start, end: "2016-12-31T23:59:60Z" } },
    proto: { ...workflowProto(), license: { start: at(startSeconds), end: at(253_402_300_800n) } },
    message: badTime("license.end")
  },
  {
    name: "the license left out",
    op: "createWorkflow",
    json: { org: { name: "Initech" }, profile: { fullName: "Peter" } },
    proto: { org: { name: "Initech" }, profile: { fullName: "Peter" } },
    message: "license: is missing",
    per: { graphql: invalid.graphqlInput(/Field "license" of required type "LicenseInput!" was not provided/, "license") }
  },
  {
    name: "everything left out",
    op: "createWorkflow",
    json: {},
    proto: {},
    message: "license: is missing; org: is missing; profile: is missing",
    per: { graphql: invalid.graphqlInput(/Field "license" of required type "LicenseInput!" was not provided/, "license") }
  },
  // wrong JSON types (protobuf binary has no way to say these)
  {
    name: "a number for the name",
    op: "createOrg",
    json: { ...org(), name: 5 },
    message: "name: must be a string",
    per: {
      graphql: invalid.graphqlInput(/"input\.name"; String cannot represent a non string value: 5/, "name"),
      binary: "skip"
    }
  },
  {
    name: "an object for the id",
    op: "getOrg",
    json: { id: {} },
    message: "id: must be a string",
    per: {
      graphql: invalid.graphqlInput(/ID cannot represent value: \{\}/, "id"),
      rest: "skip", // a path segment is always text
      binary: "skip"
    }
  },
  {
    name: "an array for the id",
    op: "createOrg",
    json: { ...org(), id: ["6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b"] },
    message: "id: must be a string",
    per: {
      graphql: invalid.graphqlInput(/ID cannot represent value/, "id"),
      rest: "skip",
      binary: "skip"
    }
  },
  {
    name: "null for the full name",
    op: "createProfile",
    json: { ...profile(), fullName: null },
    message: "fullName: must be a string",
    per: {
      connectJson: invalid.connect("fullName: must not be blank"), // proto3 JSON: null is "not set"
      graphql: invalid.graphqlInput(/Expected non-nullable type "String!" not to be null/, "fullName"),
      binary: "skip"
    }
  },
  {
    name: "a number for start",
    op: "createLicense",
    json: { ...license(), start: 1_700_136_000 },
    message: "start: must be a string",
    per: {
      connectJson: invalid.connect(badTime("start")),
      graphql: invalid.graphqlInput(/String cannot represent a non string value: 1700136000/, "start"),
      binary: "skip"
    }
  },
  {
    name: "a string for the org",
    op: "createWorkflow",
    json: { ...workflow(), org: "Initech" },
    message: "org: must be an object",
    per: {
      graphql: invalid.graphqlInput(/Expected type "OrgInput" to be an object/, "org"),
      binary: "skip"
    }
  },
  {
    name: "a number for the org's name",
    op: "createWorkflow",
    json: { ...workflow(), org: { name: 5 } },
    message: "org.name: must be a string",
    per: {
      graphql: invalid.graphqlInput(/String cannot represent a non string value: 5/, "org.name"),
      binary: "skip"
    }
  },
  {
    name: "a number for the workflow id",
    op: "createWorkflow",
    json: { ...workflow(), workflowOptions: { workflowId: 5 } },
    message: "workflowOptions.workflowId: must be a string",
    per: {
      graphql: invalid.graphqlInput(/String cannot represent a non string value: 5/, "workflowOptions.workflowId"),
      binary: "skip"
    }
  }
]

const defaults: Record<Family, (message: string | RegExp) => Want> = {
  connectJson: invalid.connect,
  binary: invalid.grpc,
  rest: invalid.rest,
  graphql: invalid.graphql,
  rpc: invalid.rpc
}

const wantFor = (c: ValueCase, family: Family): Want | undefined => {
  const own = c.per?.[family]
  if (own === "skip") return undefined
  return own ?? defaults[family](c.message)
}

/** protobuf init -> @grpc/grpc-js's plain objects (int64 as decimal text). */
const forGrpcJs = (value: unknown): unknown =>
  typeof value === "bigint"
    ? String(value)
    : Array.isArray(value)
    ? value.map(forGrpcJs)
    : typeof value === "object" && value !== null
    ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, forGrpcJs(v)]))
    : value

const clientFor = connectNodeClients()

for (const c of valueCases) {
  const op = operations[c.op]
  const name = `${c.op}, ${c.name}`
  if (c.json !== undefined) {
    const json = c.json
    const connect = wantFor(c, "connectJson")
    if (connect) {
      add(
        "Connect JSON",
        name,
        op.port,
        (urls) => connectPost(urls[op.port], op.method, JSON.stringify(json)),
        connect,
        shapes.connect
      )
    }
    const rest = wantFor(c, "rest")
    if (rest) {
      const request = op.rest(json)
      add(
        "REST",
        name,
        op.port,
        (urls) =>
          restCall(
            `${urls[op.port]}${request.path}`,
            request.method,
            request.body === undefined ? undefined : JSON.stringify(request.body)
          ),
        rest,
        shapes.rest
      )
    }
    const graphql = wantFor(c, "graphql")
    if (graphql) {
      const body = JSON.stringify({ query: op.graphql.query, variables: op.graphql.variables(json) })
      add(
        "GraphQL",
        name,
        op.port,
        (urls) => graphqlCall(urls[op.port], body),
        graphql,
        graphql.status === 400 ? shapes.graphqlRequest : shapes.graphqlField(op.graphql.field)
      )
    }
    const rpc = wantFor(c, "rpc")
    if (rpc) {
      // Sent as a raw frame: the typed client checks a payload's wire shape before sending (its
      // schema is the operation's), so only the server's own checks are seen this way.
      add("Effect RPC (/rpc)", name, op.port, (urls) => rpcPost(urls[op.port], rpcRequest(op.rpc.tag, json)), rpc)
    }
  }
  // A JSON request is also a protobuf one when it has no Timestamps (those are seconds and nanos there).
  const timestamped = c.op === "createLicense" || c.op === "createWorkflow"
  const proto = c.proto ?? (timestamped ? undefined : c.json)
  const binary = wantFor(c, "binary")
  if (proto !== undefined && binary) {
    for (const style of Object.keys(connectNodeTransports) as Array<ConnectNodeStyle>) {
      add(
        style,
        name,
        op.port,
        (urls) => connectNodeCall(() => (clientFor(style, op.port, urls[op.port]) as any)[op.client](proto)),
        binary
      )
    }
    add(
      "gRPC (@grpc/grpc-js)",
      name,
      op.port,
      (urls) => grpcJsCall(urls[op.port], op.method, { message: forGrpcJs(proto) as object }),
      binary
    )
  }
}

// ---------------------------------------------------------------------------------------------
// Malformed requests, protocol by protocol

const createOrg = operations.createOrg.method
const getOrg = operations.getOrg.method
const createLicense = operations.createLicense.method
const validOrg = () => protoBytes(CreateOrgRequestSchema, { id: id(), name: "Acme" })
const emptyMessage = `${notUuid("id")}; name: must not be blank`

// Connect JSON, by hand
{
  const style = "Connect JSON"
  const post = (body: string, contentType?: string, method?: string) => (urls: ServiceUrls) =>
    connectPost(urls.org, createOrg, body, contentType, method)
  add(
    style,
    "malformed JSON",
    "org",
    post(`{"id": `),
    invalid.connect(/^cannot decode message org\.v1beta1\.CreateOrgRequest from JSON/),
    shapes.connect
  )
  add(
    style,
    "an array as the body",
    "org",
    post(JSON.stringify([org()])),
    invalid.connect(/^cannot decode message org\.v1beta1\.CreateOrgRequest from JSON/),
    shapes.connect
  )
  add(
    style,
    "null as the body",
    "org",
    post("null"),
    invalid.connect(/^cannot decode message .* from JSON: null/),
    shapes.connect
  )
  add(
    style,
    "a string as the body",
    "org",
    post(`"Acme"`),
    invalid.connect(/^cannot decode message .* from JSON/),
    shapes.connect
  )
  add(
    style,
    "an empty body",
    "org",
    post(""),
    invalid.connect(/^cannot decode message .* from JSON: Unexpected end of JSON input/),
    shapes.connect
  )
  add(style, "an empty object (every field missing)", "org", post("{}"), invalid.connect(emptyMessage), shapes.connect)
  add(
    style,
    "a text/plain content type",
    "org",
    post(JSON.stringify(org()), "text/plain"),
    unsupported(/^content type "text\/plain" is not served here; send application\/json or application\/proto \(Connect\)/)
  )
  add(
    style,
    "a form content type",
    "org",
    post("id=x&name=y", "application/x-www-form-urlencoded"),
    unsupported(/^content type "application\/x-www-form-urlencoded" is not served here; send /)
  )
  add(
    style,
    "a charset other than UTF-8",
    "org",
    post(JSON.stringify(org()), "application/json; charset=utf-16"),
    unsupported(/^content type "application\/json; charset=utf-16" is not served here; send /)
  )
  add(
    style,
    "PUT instead of POST",
    "org",
    post(JSON.stringify(org()), "application/json", "PUT"),
    notAllowed("method not allowed; use POST")
  )
  add(
    style,
    "DELETE on a read",
    "org",
    (urls) => connectPost(urls.org, getOrg, "{}", "application/json", "DELETE"),
    notAllowed("method not allowed; use POST, GET")
  )
  add(
    style,
    "GET on a create (not free of side effects)",
    "org",
    (urls) => connectGet(urls.org, createOrg, `encoding=json&message=${encodeURIComponent(JSON.stringify(org()))}`),
    notAllowed("method not allowed; use POST")
  )
  add(
    style,
    "GET with a malformed message",
    "org",
    (urls) => connectGet(urls.org, getOrg, "encoding=json&message=%7Bbad"),
    invalid.connect(/^cannot decode message org\.v1beta1\.GetOrgRequest from JSON/),
    shapes.connect
  )
  add(
    style,
    "GET with a message that is not a UUID",
    "org",
    (urls) => connectGet(urls.org, getOrg, `encoding=json&message=${encodeURIComponent(`{"id":"x"}`)}`),
    invalid.connect(notUuid("id")),
    shapes.connect
  )
  add(
    style,
    "GET of a list with a page size above 100",
    "org",
    (urls) =>
      connectGet(urls.org, operations.listOrgs.method, `encoding=json&message=${encodeURIComponent(`{"page_size":101}`)}`),
    invalid.connect(pageSizeRule),
    shapes.connect
  )
  add(
    style,
    "GET without encoding or message",
    "org",
    (urls) => connectGet(urls.org, getOrg, ""),
    unsupported("a Connect GET carries its message in the query: ?encoding=json&message=<JSON> (or encoding=proto&base64=1)")
  )
  add(
    style,
    "an unknown method",
    "org",
    (urls) => connectPost(urls.org, "org.v1beta1.OrgService/DeleteOrg", "{}"),
    { status: 404, code: "unimplemented", message: /^this port serves no procedure \/org\.v1beta1\.OrgService\/DeleteOrg / }
  )
  add(
    style,
    "another port's service",
    "org",
    (urls) => connectPost(urls.org, operations.createWorkflow.method, "{}"),
    { status: 404, code: "unimplemented", message: /^this port serves no procedure .*WorkflowService/ }
  )
  add(
    style,
    "a bidi-streaming method (reflection) over HTTP/1.1",
    "org",
    (urls) => connectPost(urls.org, "grpc.reflection.v1.ServerReflection/ServerReflectionInfo", "{}", "application/connect+json"),
    { status: 505, code: undefined, message: "" } // the Connect protocol's answer: HTTP/2 is required
  )
  add(style, "an invalid Connect-Timeout-Ms", "org", async (urls) => {
    const reply = await fetch(`${urls.org}/${createOrg}`, {
      method: "POST",
      headers: { "content-type": "application/json", "connect-timeout-ms": "soon" },
      body: JSON.stringify(org())
    })
    const body = await reply.json() as { code: string; message: string }
    return { status: reply.status, code: body.code, message: body.message, body }
  }, invalid.connect(/invalid connect timeout value: soon/))
  add(
    style,
    "Feb 30 in a JSON body with a charset parameter",
    "license",
    (urls) => {
      const body = JSON.stringify({ ...license(), start: "2023-02-30T00:00:00Z" })
      return connectPost(urls.license, createLicense, body, "application/json; charset=utf-8")
    },
    invalid.connect(badTime("start")),
    shapes.connect
  )
}

// Requests no HTTP client sends: HTTP/1.0 without a Host header (node:http lets it through)
{
  const style = "HTTP/1.0 without Host"
  const request = (method: string, path: string, contentType: string, body: string) =>
    `${method} ${path} HTTP/1.0\r\ncontent-type: ${contentType}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  const noHost = invalid.connect("the request names no host (a Host header or :authority is required)")
  add(style, "Connect JSON", "org", (urls) => rawHttp(urls.org, request("POST", `/${getOrg}`, "application/json", "{}")), noHost)
  add(
    style,
    "Connect JSON to a method whose body is read first (Timestamps)",
    "license",
    (urls) => rawHttp(urls.license, request("POST", `/${createLicense}`, "application/json", JSON.stringify(license()))),
    noHost
  )
  add(
    style,
    "gRPC-Web",
    "org",
    (urls) => rawHttp(urls.org, request("POST", `/${createOrg}`, "application/grpc-web+proto", "")),
    noHost
  )
  add(
    style,
    "REST",
    "org",
    (urls) => rawHttp(urls.org, request("PUT", `/orgs/${id()}`, "application/json", `{"name": " "}`)),
    invalid.rest("name: must not be blank")
  )
  add(
    style,
    "GraphQL",
    "org",
    (urls) => rawHttp(urls.org, request("POST", "/graphql", "application/json", JSON.stringify({ query: "{ nope }" }))),
    { status: 200, code: undefined, message: "" }
  )
}

// Connect binary, by hand
{
  const style = "Connect binary"
  const post = (bytes: Array<number> | Uint8Array, port: Port = "org", path = createOrg) => (urls: ServiceUrls) =>
    connectPost(urls[port], path, Uint8Array.from(bytes), "application/proto")
  const decodeFailure = (detail = "") => invalid.connect(new RegExp(`^parse binary: .*${detail}`, "i"))
  add(style, "garbage bytes", "org", post([0xff, 0xff, 0xff]), decodeFailure(), shapes.connect)
  add(
    style,
    "a length-delimited field cut short",
    "org",
    post([0x12, 0x0a, 0x41, 0x42]),
    decodeFailure("premature EOF"),
    shapes.connect
  )
  add(
    style,
    "invalid UTF-8 in a string field",
    "org",
    post([0x12, 0x02, 0xc3, 0x28]),
    decodeFailure("utf-8"),
    shapes.connect
  )
  add(style, "a varint where the name's string belongs", "org", post([0x10, 0x05]), decodeFailure(), shapes.connect)
  add(style, "field number 0", "org", post([0x00, 0x01]), decodeFailure("field no 0"), shapes.connect)
  add(
    style,
    "a Timestamp with garbage inside",
    "license",
    post([0x12, 0x03, 0xff, 0xff, 0xff], "license", createLicense),
    decodeFailure(),
    shapes.connect
  )
  add(style, "an empty message (every field missing)", "org", post([]), invalid.connect(emptyMessage), shapes.connect)
  add(style, "a gzip content-encoding over bytes that are not gzip", "org", (urls) =>
    fetch(`${urls.org}/${createOrg}`, {
      method: "POST",
      headers: { "content-type": "application/proto", "content-encoding": "gzip" },
      body: Uint8Array.from([1, 2, 3])
    }).then(async (reply) => {
      const body = await reply.json() as { code: string; message: string }
      return { status: reply.status, code: body.code, message: body.message, body }
    }), invalid.connect("decompression failed"), shapes.connect)
  add(
    style,
    "a garbage message to a server-streaming method (health Watch), refused in its end-of-stream",
    "org",
    (urls) => connectStream(urls.org, "grpc.health.v1.Health/Watch", envelope(Uint8Array.from([0xff, 0xff]))),
    { status: 200, code: "invalid_argument", message: /^parse binary: / }
  )
  add(
    style,
    "GET with garbage as the base64 message",
    "org",
    (urls) => connectGet(urls.org, getOrg, "encoding=proto&base64=1&message=__8"),
    decodeFailure(),
    shapes.connect
  )
  for (const [name, message] of [["%", "%25%25%25"], ["one character", "a"], ["punctuation", "!!!!"]]) {
    add(
      style,
      `GET with a base64 message that is not base64 (${name})`,
      "org",
      (urls) => connectGet(urls.org, getOrg, `encoding=proto&base64=1&message=${message}`),
      invalid.connect("message: the query parameter is not base64 (base64=1)"),
      shapes.connect
    )
  }
}

// gRPC over HTTP/2, by hand (frames of our making)
{
  const style = "gRPC (raw HTTP/2)"
  const call = (body: Uint8Array, headers: Record<string, string> = {}, port: Port = "org", path = createOrg) =>
  (urls: ServiceUrls) => grpcRaw(urls[port], path, body, headers)
  const json = (value: unknown) => envelope(Buffer.from(JSON.stringify(value)))
  add(
    style,
    "a garbage message",
    "org",
    call(envelope(Uint8Array.from([0xff, 0xff, 0xff]))),
    invalid.grpc(/^parse binary: /)
  )
  add(
    style,
    "a frame whose length is longer than its data",
    "org",
    call(Uint8Array.from([0, 0, 0, 0, 10, 1, 2])),
    invalid.grpc("protocol error: incomplete envelope")
  )
  add(
    style,
    "a frame cut inside its header",
    "org",
    call(Uint8Array.from([0, 0])),
    invalid.grpc("protocol error: incomplete envelope")
  )
  add(
    style,
    "invalid UTF-8 in a string field",
    "org",
    call(envelope(Uint8Array.from([0x0a, 0x02, 0xc3, 0x28]))),
    invalid.grpc(/^parse binary: .*utf-8/i)
  )
  add(
    style,
    "the compressed flag without an encoding",
    "org",
    call(envelope(Uint8Array.from([1, 2, 3]), 1)),
    invalid.grpc(/^received compressed envelope/)
  )
  add(
    style,
    "a gzip-flagged frame that is not gzip",
    "org",
    call(envelope(Uint8Array.from([1, 2, 3]), 1), { "grpc-encoding": "gzip" }),
    invalid.grpc("decompression failed")
  )
  add(
    style,
    "an unknown grpc-encoding",
    "org",
    call(envelope(Uint8Array.from([1, 2, 3]), 1), { "grpc-encoding": "lzma" }),
    { code: 12, message: /unknown compression "lzma"/ }
  )
  add(
    style,
    "two messages for a unary method",
    "org",
    call(Buffer.concat([envelope(validOrg()), envelope(validOrg())])),
    { code: 12, message: /extra input message/ }
  )
  add(style, "no message at all", "org", call(new Uint8Array()), { code: 12, message: /missing input message/ })
  add(
    style,
    "a malformed grpc-timeout",
    "org",
    call(envelope(validOrg()), { "grpc-timeout": "soon" }),
    invalid.grpc(/invalid grpc timeout value: soon/)
  )
  add(
    style,
    "an empty message (every field missing)",
    "org",
    call(envelope(new Uint8Array())),
    invalid.grpc(emptyMessage)
  )
  add(
    style,
    "an unknown content subtype",
    "org",
    call(envelope(validOrg()), { "content-type": "application/grpc+yaml" }),
    { status: 415, code: undefined, message: "" }
  )
  add(
    style,
    "the JSON codec with malformed JSON",
    "org",
    call(envelope(Buffer.from("{bad")), { "content-type": "application/grpc+json" }),
    invalid.grpc(/^cannot decode message org\.v1beta1\.CreateOrgRequest from JSON/)
  )
  add(
    style,
    "the JSON codec with a start on February 30th",
    "license",
    call(
      json({ ...license(), start: "2023-02-30T00:00:00Z" }),
      { "content-type": "application/grpc+json" },
      "license",
      createLicense
    ),
    invalid.grpc(badTime("start"))
  )
}

// gRPC through @grpc/grpc-js, with a serializer that sends what it is given
{
  const style = "gRPC (@grpc/grpc-js)"
  add(
    style,
    "garbage bytes as the message",
    "org",
    (urls) => grpcJsCall(urls.org, createOrg, { bytes: Uint8Array.from([0xff, 0xff, 0xff]) }),
    invalid.grpc(/^parse binary: /)
  )
  add(
    style,
    "invalid UTF-8 in the name",
    "org",
    (urls) => grpcJsCall(urls.org, createOrg, { bytes: Buffer.concat([validOrg(), Uint8Array.from([0x12, 0x02, 0xc3, 0x28])]) }),
    invalid.grpc(/^parse binary: .*utf-8/i)
  )
  add(
    style,
    "a Timestamp with garbage inside",
    "license",
    (urls) => grpcJsCall(urls.license, createLicense, { bytes: Uint8Array.from([0x12, 0x03, 0xff, 0xff, 0xff]) }),
    invalid.grpc(/^parse binary: /)
  )
  add(
    style,
    "an unknown method",
    "org",
    (urls) => grpcJsCall(urls.org, "org.v1beta1.OrgService/DeleteOrg", { bytes: validOrg() }),
    { code: 12, message: /./ }
  )
}

// gRPC-Web, by hand
{
  const style = "gRPC-Web (raw HTTP/1.1)"
  const call = (body: Uint8Array | string, contentType?: string, port: Port = "org", path = createOrg) =>
  (urls: ServiceUrls) => grpcWebRaw(urls[port], path, body, contentType)
  add(
    style,
    "a garbage message",
    "org",
    call(envelope(Uint8Array.from([0xff, 0xff]))),
    invalid.grpcWeb(/^parse binary: /)
  )
  add(
    style,
    "a frame whose length is longer than its data",
    "org",
    call(Uint8Array.from([0, 0, 0, 0, 9, 1])),
    invalid.grpcWeb("protocol error: incomplete envelope")
  )
  add(
    style,
    "the compressed flag without an encoding",
    "org",
    call(envelope(Uint8Array.from([1]), 1)),
    invalid.grpcWeb(/^received compressed envelope/)
  )
  add(
    style,
    "an empty message (every field missing)",
    "org",
    call(envelope(new Uint8Array())),
    invalid.grpcWeb(emptyMessage)
  )
  add(
    style,
    "grpc-web-text, which this server does not speak",
    "org",
    call(Buffer.from(envelope(validOrg())).toString("base64"), "application/grpc-web-text"),
    { status: 415, code: undefined, message: "" }
  )
  add(
    style,
    "the JSON codec with malformed JSON",
    "org",
    call(envelope(Buffer.from("[1,")), "application/grpc-web+json"),
    invalid.grpcWeb(/^cannot decode message org\.v1beta1\.CreateOrgRequest from JSON/)
  )
  add(
    style,
    "the JSON codec with a start at 24:00",
    "license",
    call(
      envelope(Buffer.from(JSON.stringify({ ...license(), start: "2023-11-16T24:00:00Z" }))),
      "application/grpc-web+json",
      "license",
      createLicense
    ),
    invalid.grpcWeb(badTime("start"))
  )
}

// REST, by hand
{
  const style = "REST"
  const put = (body: string | undefined, contentType: string | undefined = "application/json") => (urls: ServiceUrls) =>
    restCall(`${urls.org}/orgs/${id()}`, "PUT", body, contentType)
  const notJsonObject = invalid.rest("the request body must be a JSON object")
  add(style, "malformed JSON", "org", put(`{"name": `), invalid.rest("the request body is not valid JSON"), shapes.rest)
  add(style, "an empty body", "org", put(""), invalid.rest("the request body is not valid JSON"), shapes.rest)
  add(style, "an array as the body", "org", put(`[{"name": "Acme"}]`), notJsonObject, shapes.rest)
  add(style, "null as the body", "org", put("null"), notJsonObject, shapes.rest)
  add(style, "a string as the body", "org", put(`"Acme"`), notJsonObject, shapes.rest)
  add(
    style,
    "a text/plain content type",
    "org",
    put(`{"name": "Acme"}`, "text/plain"),
    { status: 415, code: 3, message: "the request body must be JSON (Content-Type: application/json)" },
    shapes.rest
  )
  add(
    style,
    "no content type",
    "org",
    async (urls) => {
      // A byte body: fetch adds no content type for it.
      const body = Uint8Array.from(Buffer.from(`{"name": "Acme"}`))
      const reply = await fetch(`${urls.org}/orgs/${id()}`, { method: "PUT", body })
      const json = await reply.json() as { code: number; message: string }
      return { status: reply.status, code: json.code, message: json.message, body: json }
    },
    { status: 415, code: 3, message: "the request body must be JSON (Content-Type: application/json)" },
    shapes.rest
  )
  add(
    style,
    "a body id that differs from the path's",
    "org",
    put(JSON.stringify({ id: id(), name: "Acme" })),
    invalid.rest("id: must match the id in the path"),
    shapes.rest
  )
  add(
    style,
    "an object as the body's id",
    "org",
    put(JSON.stringify({ id: {}, name: "Acme" })),
    invalid.rest("id: must match the id in the path"),
    shapes.rest
  )
  add(
    style,
    "a workflow body that is an array",
    "workflow",
    (urls) => restCall(`${urls.workflow}/workflow/workflows/onboarding`, "POST", "[]"),
    notJsonObject,
    shapes.rest
  )
  const methodNotAllowed = (allow: string): Want => ({
    status: 405,
    code: 12,
    message: `method not allowed; use ${allow}`
  })
  const withAllow = (allow: string) => (answer: Answer) => {
    shapes.rest(answer)
    expect(answer.headers?.get("allow")).toBe(allow)
  }
  add(
    style,
    "DELETE on an org",
    "org",
    (urls) => restCall(`${urls.org}/orgs/${id()}`, "DELETE"),
    methodNotAllowed("GET, POST, PUT"),
    withAllow("GET, POST, PUT")
  )
  add(
    style,
    "PATCH on a license",
    "license",
    (urls) => restCall(`${urls.license}/licenses/${id()}`, "PATCH", JSON.stringify({ end })),
    methodNotAllowed("GET, POST, PUT"),
    withAllow("GET, POST, PUT")
  )
  add(
    style,
    "PUT on the workflow collection",
    "workflow",
    (urls) => restCall(`${urls.workflow}/workflow/workflows/onboarding`, "PUT", JSON.stringify(workflow())),
    methodNotAllowed("GET, POST"),
    withAllow("GET, POST")
  )
  add(
    style,
    "DELETE on a run",
    "workflow",
    (urls) => restCall(`${urls.workflow}/workflow/workflows/onboarding/${id()}`, "DELETE"),
    methodNotAllowed("GET"),
    withAllow("GET")
  )
  add(
    style,
    "POST to the collection without an id (the collection only lists)",
    "org",
    (urls) => restCall(`${urls.org}/orgs`, "POST", JSON.stringify({ name: "Acme" })),
    methodNotAllowed("GET"),
    withAllow("GET")
  )
  add(
    style,
    "a list's page size given twice",
    "org",
    (urls) => restCall(`${urls.org}/orgs?pageSize=1&pageSize=2`, "GET"),
    invalid.rest("pageSize: must be given once"),
    shapes.rest
  )
  add(
    style,
    "a list's parameters by their proto names",
    "profile",
    (urls) => restCall(`${urls.profile}/profiles?page_size=1000&org_id=acme&page_token=x`, "GET"),
    invalid.rest(
      [pageSizeRule, "pageToken: must be a nextPageToken from an earlier answer of this list", notUuid("orgId")].join("; ")
    ),
    shapes.rest
  )
  add(
    style,
    "another port's resource",
    "org",
    (urls) => restCall(`${urls.org}/licenses/${id()}`, "PUT", JSON.stringify({ userId: id(), start, end })),
    noPath,
    shapes.rest
  )
  add(style, "an unknown path", "org", (urls) => restCall(`${urls.org}/nope`, "GET"), noPath, shapes.rest)
}

// GraphQL, by hand
{
  const style = "GraphQL"
  const post = (body: string, accept?: string) => (urls: ServiceUrls) =>
    graphqlCall(urls.org, body, accept === undefined ? {} : { accept })
  const query = (document: string, extra: Json = {}) => post(JSON.stringify({ query: document, ...extra }))
  const request = invalid.graphqlRequest
  const orgQuery = `{ org(id: "${randomUUID()}") { org { id } } }`
  add(style, "malformed JSON", "org", post(`{"query": `), request("Unparsable JSON body"), shapes.graphqlRequest)
  add(
    style,
    "an array as the body",
    "org",
    post(JSON.stringify([{ query: orgQuery }])),
    request("Missing query"),
    shapes.graphqlRequest
  )
  add(style, "no query", "org", post("{}"), request("Missing query"), shapes.graphqlRequest)
  add(
    style,
    "a query that is not a string",
    "org",
    query(5 as unknown as string),
    request("Invalid query"),
    shapes.graphqlRequest
  )
  add(
    style,
    "variables that are not an object",
    "org",
    query(orgQuery, { variables: "id" }),
    request("Invalid variables"),
    shapes.graphqlRequest
  )
  add(style, "a syntax error", "org", query("{ org(id: "), request(/^Syntax Error: /), shapes.graphqlRequest)
  add(
    style,
    "a syntax error, asked for as application/json (legacy: 200)",
    "org",
    post(JSON.stringify({ query: "{ org(id: " }), "application/json"),
    { status: 200, code: undefined, message: /^Syntax Error: / },
    shapes.graphqlRequest
  )
  add(
    style,
    "an unknown query field",
    "org",
    query("{ nope }"),
    request(`Cannot query field "nope" on type "Query".`),
    shapes.graphqlRequest
  )
  add(
    style,
    "an unknown mutation",
    "org",
    query(`mutation { deleteOrg(id: "${randomUUID()}") }`),
    request(/^Cannot query field "deleteOrg" on type "Mutation"/),
    shapes.graphqlRequest
  )
  add(
    style,
    "a field its type does not have",
    "org",
    query(`{ org(id: "${randomUUID()}") { org { nickname } } }`),
    request(/^Cannot query field "nickname" on type "Org"/),
    shapes.graphqlRequest
  )
  add(
    style,
    "an unknown argument",
    "org",
    query(`{ org(id: "${randomUUID()}", nope: 1) { org { id } } }`),
    invalid.graphqlInput(/^Unknown argument "nope" on field "Query\.org"/, "nope"),
    shapes.graphqlRequest
  )
  add(
    style,
    "an operationName that is not in the document",
    "org",
    query(`query A ${orgQuery}`, { operationName: "B" }),
    request("Unable to detect operation AST"),
    shapes.graphqlRequest
  )
  add(
    style,
    "two operations and no operationName",
    "org",
    query(`query A ${orgQuery} query B ${orgQuery}`),
    request(/operation/i),
    shapes.graphqlRequest
  )
  add(
    style,
    "a variable declared with the wrong type",
    "org",
    query("query($id: String!) { org(id: $id) { org { id } } }", { variables: { id: "x" } }),
    request(/Variable "\$id" of type "String!" used in position expecting type "ID!"/),
    shapes.graphqlRequest
  )
  add(
    style,
    "a required variable not given",
    "org",
    query("query($id: ID!) { org(id: $id) { org { id } } }"),
    invalid.graphqlInput(/Variable "\$id" of required type "ID!" was not provided/, "id"),
    shapes.graphqlRequest
  )
  // GraphQL's input coercion refuses fields an input type does not declare (unlike proto3 JSON).
  add(
    style,
    "an unknown field inside an input object",
    "org",
    query(operations.createOrg.graphql.query, { variables: { input: { ...org(), nickname: "A" } } }),
    invalid.graphqlInput(/Field "nickname" is not defined by type "CreateOrgInput"/, "nickname"),
    shapes.graphqlRequest
  )
  add(
    style,
    "a mutation over GET",
    "org",
    (urls) => graphqlGet(urls.org, `mutation { createOrg(input: {id: "${id()}", name: "Acme"}) { org { id } } }`),
    { status: 405, code: undefined, message: "Cannot perform mutations over GET" }
  )
  add(
    style,
    "PUT",
    "org",
    (urls) => graphqlCall(urls.org, JSON.stringify({ query: orgQuery }), { method: "PUT" }),
    { status: 405, code: undefined, message: "" }
  )
  add(
    style,
    "a text/plain content type",
    "org",
    (urls) => graphqlCall(urls.org, JSON.stringify({ query: orgQuery }), { contentType: "text/plain" }),
    {
      status: 415,
      code: "UNSUPPORTED_MEDIA_TYPE",
      message: "a GraphQL POST must be JSON in UTF-8 (Content-Type: application/json), or use GET for a query"
    }
  )
  add(
    style,
    "a non-UUID id written inline",
    "org",
    query(`{ org(id: "not-a-uuid") { org { id } } }`),
    invalid.graphql(notUuid("id")),
    shapes.graphqlField("org")
  )
  add(
    style,
    "a blank name written inline",
    "org",
    query(`mutation { createOrg(input: {id: "${randomUUID()}", name: " "}) { org { id } } }`),
    invalid.graphql("name: must not be blank"),
    shapes.graphqlField("createOrg")
  )
}

// Effect RPC, raw POSTs to /rpc
{
  const style = "Effect RPC (raw /rpc)"
  // Bodies that are not one request frame are refused before @effect/rpc reads them, in /rpc's
  // HTTP error form (rpcEndpoint.ts): 400 with `{code: 3, message, details: []}`.
  const frameRefused = (message: RegExp): Want => ({ status: 400, code: 3, message })
  const post = (body: string | Uint8Array, contentType?: string) => (urls: ServiceUrls) =>
    rpcPost(urls.org, body, contentType)
  add(style, "malformed JSON", "org", post(`{"_tag": "Request", `), frameRefused(/^the request body is not valid JSON$/))
  add(style, "an empty body", "org", post(""), frameRefused(/^the request body is not valid JSON$/))
  add(style, "an array of nothing", "org", post("[]"), frameRefused(/^the request body must be one request frame/))
  add(style, "a frame of an unknown kind", "org", post(`{"_tag": "Nope"}`), frameRefused(/^the request body must be one request frame/))
  add(
    style,
    "an unknown procedure",
    "org",
    post(rpcRequest("DeleteOrg", { id: id() })),
    frameRefused(/^tag: must be one of CreateOrg, GetOrg/)
  )
  add(
    style,
    "a numeric request id",
    "org",
    post(JSON.stringify({ _tag: "Request", id: 1, tag: "GetOrg", payload: { id: id() }, headers: [] })),
    frameRefused(/^id: must be/)
  )
  add(
    style,
    "binary garbage",
    "org",
    post(Uint8Array.from([0xff, 0xfe, 0x00]), "application/json"),
    frameRefused(/^the request body is not valid UTF-8$/)
  )
  // Only the serialization's own media type is read (a browser sends the others cross-site unasked).
  for (const contentType of ["application/octet-stream", "text/plain"]) {
    add(style, `a frame sent as ${contentType}`, "org", post(rpcRequest("GetOrg", { id: id() }), contentType), {
      status: 415,
      code: 3,
      message: /^the request body must be one request frame in JSON \(Content-Type: application\/json\)$/
    })
  }
  add(
    style,
    "a number for the id",
    "org",
    post(rpcRequest("GetOrg", { id: 5 })),
    { status: 200, ...invalid.rpc("id: must be a string") }
  )
  add(
    style,
    "a number for the name",
    "org",
    post(rpcRequest("CreateOrg", { id: id(), name: 5 })),
    { status: 200, ...invalid.rpc("name: must be a string") }
  )
  add(
    style,
    "a null payload",
    "org",
    post(rpcRequest("CreateOrg", null)),
    { status: 200, ...invalid.rpc("must be an object") }
  )
  add(
    style,
    "an array as the payload",
    "org",
    post(rpcRequest("CreateOrg", [org()])),
    { status: 200, ...invalid.rpc("must be an object") }
  )
  add(
    style,
    "the name left out",
    "org",
    post(rpcRequest("CreateOrg", { id: id() })),
    { status: 200, ...invalid.rpc("name: is missing") }
  )
  add(
    style,
    "a blank name",
    "org",
    post(rpcRequest("CreateOrg", { id: id(), name: " " })),
    { status: 200, ...invalid.rpc("name: must not be blank") }
  )
  add(
    style,
    "GET",
    "org",
    (urls) => restCall(`${urls.org}/rpc`, "GET"),
    { status: 405, code: 12, message: "method not allowed; use POST" },
    shapes.rest
  )
  add(
    style,
    "PUT",
    "org",
    (urls) => restCall(`${urls.org}/rpc`, "PUT", "[]"),
    { status: 405, code: 12, message: "method not allowed; use POST" },
    shapes.rest
  )
}

// ---------------------------------------------------------------------------------------------

describe(`bad input, every style (${testDatabaseKind})`, () => {
  layer(inProcessServers(), { timeout: 120_000, excludeTestServices: true })((it) => {
    for (const c of cases) it.effect(c.title, () => refused(c))

    /** A call that must succeed and write exactly `written` more rows. */
    const accepted = (
      port: Port,
      send: (urls: ServiceUrls) => Promise<Answer>,
      written: Partial<Record<"orgs" | "profiles" | "licenses" | "runs", number>>,
      ok: (answer: Answer) => void = (answer) => expect(answer.code).toBe("ok")
    ) =>
      Effect.gen(function*() {
        const urls = yield* Services
        const before = yield* rowCounts
        ok(yield* Effect.promise(() => send(urls)))
        const after = yield* rowCounts
        expect(after).toEqual({
          orgs: before.orgs + (written.orgs ?? 0),
          profiles: before.profiles + (written.profiles ?? 0),
          licenses: before.licenses + (written.licenses ?? 0),
          runs: before.runs + (written.runs ?? 0)
        })
        expect(yield* Effect.promise(() => healthz(urls[port]))).toBe(200)
      })

    const workflowWithExtras = {
      ...workflow(),
      license: { start, end, seats: 5 },
      org: { name: "Initech", domain: "initech.example" },
      profile: { full_name: "Peter Gibbons", shoeSize: 10 },
      tracing: { spanId: "abc" }
    }
    // field 15, varint 1: CreateOrgRequest has no such field
    const withUnknownField = () => Buffer.concat([validOrg(), Uint8Array.from([0x78, 0x01])])
    const extrasPaths = ["license.seats", "org.domain", "profile.shoeSize", "tracing"]
    /** Refused in the style's form of invalid_argument (`want`), naming each of `paths` as unknown, in any order. */
    const refusedNaming = (want: (message: string) => Want, ...paths: ReadonlyArray<string>) => (answer: Answer) => {
      const { message: _, ...form } = want("")
      expect({ status: answer.status, code: answer.code }).toEqual({ status: form.status ?? answer.status, code: form.code })
      expect(answer.message.split("; ").sort()).toEqual(paths.map((path) => `${path}: is not a known field`).sort())
    }
    const everyTable = { orgs: 1, profiles: 1, licenses: 1, runs: 1 }
    const httpOk = (answer: Answer) => expect(answer.status).toBe(200)
    const grpcOk = (answer: Answer) => expect(answer.code).toBe(0)

    it.effect("Connect JSON: unknown fields are refused by name, nothing written", () =>
      accepted("org", (urls) => {
        const body = JSON.stringify({ ...org(), nickname: "A", tags: [1, { x: null }] })
        return connectPost(urls.org, createOrg, body)
      }, {}, refusedNaming(invalid.connect, "nickname", "tags")))
    it.effect("Connect JSON: unknown fields at every level of a workflow are refused by their paths, nothing written", () =>
      accepted(
        "workflow",
        (urls) => connectPost(urls.workflow, operations.createWorkflow.method, JSON.stringify(workflowWithExtras)),
        {},
        refusedNaming(invalid.connect, ...extrasPaths)
      ))
    it.effect("Connect binary: an unknown field number is skipped", () =>
      accepted(
        "org",
        (urls) => connectPost(urls.org, createOrg, withUnknownField(), "application/proto"),
        { orgs: 1 },
        httpOk
      ))
    it.effect("gRPC (raw HTTP/2): an unknown field number is skipped", () =>
      accepted("org", (urls) => grpcRaw(urls.org, createOrg, envelope(withUnknownField())), { orgs: 1 }, grpcOk))
    it.effect("gRPC (@grpc/grpc-js): an unknown field number is skipped", () =>
      accepted("org", (urls) => grpcJsCall(urls.org, createOrg, { bytes: withUnknownField() }), { orgs: 1 }))
    it.effect("gRPC-Web (raw HTTP/1.1): an unknown field number is skipped", () =>
      accepted("org", (urls) => grpcWebRaw(urls.org, createOrg, envelope(withUnknownField())), { orgs: 1 }, grpcOk))
    it.effect("REST: unknown fields are refused by name, nothing written", () =>
      accepted("org", (urls) => {
        const body = JSON.stringify({ name: "Acme", nickname: "A", tags: [] })
        return restCall(`${urls.org}/orgs/${id()}`, "PUT", body)
      }, {}, refusedNaming(invalid.rest, "nickname", "tags")))
    it.effect("REST: unknown fields at every level of a workflow are refused by their paths, nothing written", () =>
      accepted(
        "workflow",
        (urls) => restCall(`${urls.workflow}/workflow/workflows/onboarding`, "POST", JSON.stringify(workflowWithExtras)),
        {},
        refusedNaming(invalid.rest, ...extrasPaths)
      ))
    it.effect("GraphQL: unknown members of the request body are ignored", () =>
      accepted("org", (urls) =>
        graphqlCall(
          urls.org,
          JSON.stringify({
            query: operations.createOrg.graphql.query,
            variables: { input: org() },
            extensions: { persistedQuery: null },
            clientName: "bad-input test"
          })
        ), { orgs: 1 }))
    it.effect("Effect RPC (raw /rpc): unknown payload fields are refused by name, nothing written", () =>
      accepted(
        "org",
        (urls) => rpcPost(urls.org, rpcRequest("CreateOrg", { ...org(), nickname: "A" })),
        {},
        refusedNaming((message) => ({ status: 200, ...invalid.rpc(message) }), "nickname")
      ))
    // The typed client encodes the payload with its schema, which has no such field: it is not sent
    // (and TypeScript refuses it without the cast).
    it.effect("Effect RPC (typed client): a field its payload's schema does not have is not sent", () =>
      accepted("workflow", (urls) =>
        rpcTyped(
          urls.workflow,
          Effect.flatMap(RpcClient.make(WorkflowOperations), (client) => {
            type Payload = Parameters<typeof client.CreateOnboardingWorkflow>[0]
            return client.CreateOnboardingWorkflow({ ...workflow(), nickname: "extra" } as Payload)
          })
        ), everyTable))
    it.effect("a name of exactly 200 characters outside the BMP is stored, and read back whole in another style", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const created = { id: id(), name: "🙂".repeat(200) }
        const body = JSON.stringify({ name: created.name })
        yield* accepted("org", () => restCall(`${urls.org}/orgs/${created.id}`, "PUT", body), { orgs: 1 })
        const read = yield* Effect.promise(() => connectPost(urls.org, getOrg, JSON.stringify({ id: created.id })))
        expect(read.body).toEqual({ org: created })
      }))

    // Renaming keys used to recurse once per nesting level and overflowed the stack (a 500). Within
    // JSON_MAX_DEPTH (32) a nested unknown field is refused by its name, its value not walked; past
    // it the body is refused unread.
    const nestedExtra = (depth: number) => `{"name": "Acme", "extra": ${"[".repeat(depth)}${"]".repeat(depth)}}`
    it.effect("REST: a nested unknown field within the depth bound is refused by its name", () =>
      accepted("org", (urls) => restCall(`${urls.org}/orgs/${id()}`, "PUT", nestedExtra(30)), {}, refusedNaming(invalid.rest, "extra")))
    it.effect("REST: a deeply nested unknown field is refused by the depth bound (413), nothing written", () =>
      accepted("org", (urls) => restCall(`${urls.org}/orgs/${id()}`, "PUT", nestedExtra(20_000)), {}, (answer) =>
        expect({ status: answer.status, code: answer.code, message: answer.message }).toEqual({
          status: 413,
          code: 8,
          message: "the JSON nests objects and arrays more than 32 deep; at most 32 levels are allowed"
        })))
  })
})
