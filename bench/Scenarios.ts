import { create, toBinary } from "@bufbuild/protobuf"
import { timestampFromDate } from "@bufbuild/protobuf/wkt"
import { CreateLicenseRequestSchema, GetLicenseRequestSchema } from "../src/gen/license/v1beta1/license_pb.js"
import { CreateOrgRequestSchema, GetOrgRequestSchema } from "../src/gen/org/v1beta1/org_pb.js"
import { CreateProfileRequestSchema, GetProfileRequestSchema } from "../src/gen/profile/v1beta1/profile_pb.js"
import { CreateOnboardingWorkflowRequestSchema } from "../src/gen/workflow/v1beta1/workflow_pb.js"
import { statements, tables } from "./baselines/statements.js"

/**
 * What each measured call sends, per operation and access style. A create needs a fresh id per
 * request, so paths and bodies are templates: `idMarker` stands where the load generator puts a
 * new UUID (same length, so protobuf length prefixes stay right). Gets read rows seeded first.
 */
export const operations = [
  "CreateOrg",
  "GetOrg",
  "CreateProfile",
  "GetProfile",
  "CreateLicense",
  "GetLicense",
  "CreateOnboardingWorkflow"
] as const
export type Operation = typeof operations[number]

export const styles = ["connect-json", "connect-binary", "grpc", "rest", "graphql"] as const
export type Style = typeof styles[number]

export type Service = "org" | "profile" | "license" | "workflow"
export const serviceOf: Record<Operation, Service> = {
  CreateOrg: "org",
  GetOrg: "org",
  CreateProfile: "profile",
  GetProfile: "profile",
  CreateLicense: "license",
  GetLicense: "license",
  CreateOnboardingWorkflow: "workflow"
}

export const idMarker = "f0f0f0f0-f0f0-4f0f-8f0f-f0f0f0f0f0f0"

/** The rows the reads read; made by `seedRequests` before any load. */
export interface Seed {
  readonly orgId: string
  readonly profileId: string
  readonly licenseId: string
}

export interface Scenario {
  readonly operation: Operation
  readonly style: Style
  readonly method: "GET" | "POST"
  /** May contain `idMarker`. */
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  /** May contain `idMarker`'s bytes. */
  readonly body: Uint8Array
  readonly freshId: boolean
}

const orgName = "Acme Benchmarks"
const fullName = "Ada Lovelace"
const start = "2026-01-01T00:00:00Z"
const end = "2027-01-01T00:00:00Z"
const anyOrgId = "0b0b0b0b-0b0b-4b0b-8b0b-0b0b0b0b0b0b"

const text = (value: unknown) => new TextEncoder().encode(typeof value === "string" ? value : JSON.stringify(value))
const json = { "content-type": "application/json" }
const proto = { "content-type": "application/proto" }

interface Shape {
  readonly service: string
  readonly rest: { readonly method: "GET" | "POST"; readonly path: string; readonly body?: unknown }
  readonly connect: unknown
  readonly binary: Uint8Array
  readonly graphql: { readonly query: string; readonly variables: unknown }
}

const shapes = (seed: Seed): Record<Operation, Shape> => ({
  CreateOrg: {
    service: "org.v1beta1.OrgService",
    rest: { method: "POST", path: `/orgs/${idMarker}`, body: { name: orgName } },
    connect: { id: idMarker, name: orgName },
    binary: toBinary(CreateOrgRequestSchema, create(CreateOrgRequestSchema, { id: idMarker, name: orgName })),
    graphql: {
      query: "mutation($input: CreateOrgInput!) { createOrg(input: $input) { org { id name } } }",
      variables: { input: { id: idMarker, name: orgName } }
    }
  },
  GetOrg: {
    service: "org.v1beta1.OrgService",
    rest: { method: "GET", path: `/orgs/${seed.orgId}` },
    connect: { id: seed.orgId },
    binary: toBinary(GetOrgRequestSchema, create(GetOrgRequestSchema, { id: seed.orgId })),
    graphql: { query: "query($id: ID!) { org(id: $id) { org { id name } } }", variables: { id: seed.orgId } }
  },
  CreateProfile: {
    service: "profile.v1beta1.ProfileService",
    rest: { method: "POST", path: `/profiles/${idMarker}`, body: { fullName, orgId: anyOrgId } },
    connect: { id: idMarker, fullName, orgId: anyOrgId },
    binary: toBinary(
      CreateProfileRequestSchema,
      create(CreateProfileRequestSchema, { id: idMarker, fullName, orgId: anyOrgId })
    ),
    graphql: {
      query: "mutation($input: CreateProfileInput!) { createProfile(input: $input) { profile { id fullName orgId } } }",
      variables: { input: { id: idMarker, fullName, orgId: anyOrgId } }
    }
  },
  GetProfile: {
    service: "profile.v1beta1.ProfileService",
    rest: { method: "GET", path: `/profiles/${seed.profileId}` },
    connect: { id: seed.profileId },
    binary: toBinary(GetProfileRequestSchema, create(GetProfileRequestSchema, { id: seed.profileId })),
    graphql: {
      query: "query($id: ID!) { profile(id: $id) { profile { id fullName orgId } } }",
      variables: { id: seed.profileId }
    }
  },
  CreateLicense: {
    service: "license.v1beta1.LicenseService",
    rest: { method: "POST", path: `/licenses/${idMarker}`, body: { userId: anyOrgId, start, end } },
    connect: { id: idMarker, userId: anyOrgId, start, end },
    binary: toBinary(
      CreateLicenseRequestSchema,
      create(CreateLicenseRequestSchema, {
        id: idMarker,
        userId: anyOrgId,
        start: timestampFromDate(new Date(start)),
        end: timestampFromDate(new Date(end))
      })
    ),
    graphql: {
      query:
        "mutation($input: CreateLicenseInput!) { createLicense(input: $input) { license { id start end userId } } }",
      variables: { input: { id: idMarker, userId: anyOrgId, start, end } }
    }
  },
  GetLicense: {
    service: "license.v1beta1.LicenseService",
    rest: { method: "GET", path: `/licenses/${seed.licenseId}` },
    connect: { id: seed.licenseId },
    binary: toBinary(GetLicenseRequestSchema, create(GetLicenseRequestSchema, { id: seed.licenseId })),
    graphql: {
      query: "query($id: ID!) { license(id: $id) { license { id start end userId } } }",
      variables: { id: seed.licenseId }
    }
  },
  CreateOnboardingWorkflow: {
    service: "workflow.v1beta1.WorkflowService",
    rest: {
      method: "POST",
      path: "/workflow/workflows/onboarding",
      body: { license: { start, end }, org: { name: orgName }, profile: { fullName } }
    },
    connect: { license: { start, end }, org: { name: orgName }, profile: { fullName } },
    binary: toBinary(
      CreateOnboardingWorkflowRequestSchema,
      create(CreateOnboardingWorkflowRequestSchema, {
        license: { start: timestampFromDate(new Date(start)), end: timestampFromDate(new Date(end)) },
        org: { name: orgName },
        profile: { fullName }
      })
    ),
    graphql: {
      query: "mutation($input: CreateOnboardingWorkflowInput!) { createOnboardingWorkflow(input: $input) " +
        "{ workflowId orgId profileId licenseId } }",
      variables: { input: { license: { start, end }, org: { name: orgName }, profile: { fullName } } }
    }
  }
})

/** gRPC's length-prefixed message: a zero compression flag, the length, the message. */
export const grpcFrame = (message: Uint8Array): Uint8Array => {
  const frame = new Uint8Array(5 + message.length)
  new DataView(frame.buffer).setUint32(1, message.length)
  frame.set(message, 5)
  return frame
}

export const scenario = (operation: Operation, style: Style, seed: Seed): Scenario => {
  const shape = shapes(seed)[operation]
  const freshId = operation !== "CreateOnboardingWorkflow" && operation.startsWith("Create")
  const rpcPath = `/${shape.service}/${operation}`
  const base = { operation, style, freshId }
  switch (style) {
    case "connect-json":
      return { ...base, method: "POST", path: rpcPath, headers: json, body: text(shape.connect) }
    case "connect-binary":
      return { ...base, method: "POST", path: rpcPath, headers: proto, body: shape.binary }
    case "grpc":
      return {
        ...base,
        method: "POST",
        path: rpcPath,
        headers: { "content-type": "application/grpc", te: "trailers" },
        body: grpcFrame(shape.binary)
      }
    case "rest":
      return {
        ...base,
        method: shape.rest.method,
        path: shape.rest.path,
        headers: shape.rest.body === undefined ? {} : json,
        body: shape.rest.body === undefined ? new Uint8Array() : text(shape.rest.body)
      }
    case "graphql":
      return { ...base, method: "POST", path: "/graphql", headers: json, body: text(shape.graphql) }
  }
}

/** REST creates of the rows the reads read. */
export const seedRequests = (seed: Seed) => [
  { path: `/orgs/${seed.orgId}`, body: { name: orgName }, service: "org" as const },
  { path: `/profiles/${seed.profileId}`, body: { fullName, orgId: seed.orgId }, service: "profile" as const },
  { path: `/licenses/${seed.licenseId}`, body: { userId: seed.profileId, start, end }, service: "license" as const }
]

/** The scenario's request with a real id where its path and body have the marker, for calls made one by one. */
export const withId = (s: Scenario, id: string): Scenario => ({
  ...s,
  path: s.path.split(idMarker).join(id),
  body: Buffer.from(Buffer.from(s.body).toString("latin1").split(idMarker).join(id), "latin1")
})

/** The workflow statements for pgbench, as the services send them, in one transaction. */
export const pgbenchWorkflowScript = () => {
  const at = (name: keyof typeof statements) => statements[name].replace(/\s+/g, " ")
  // pgbench has no UUID variables: ids are derived from one random number per transaction.
  const [workflowId, orgId, profileId, licenseId] = ["w", "o", "p", "l"].map((kind) => `md5('${kind}' || :n)::uuid`)
  // Each value is SQL text already; a field the request leaves out is SQL null, as the services bind it.
  const bind = (sql: string, values: ReadonlyArray<unknown>) =>
    sql.replace(/\$(\d+)/g, (_, index: string) => String(values[Number(index) - 1] ?? "null"))
  return [
    "\\set n random(1, 4611686018427387903)",
    "BEGIN;",
    bind(at("claimRun"), tables.runs.values({
      workflowId,
      orgId,
      profileId,
      licenseId,
      status: "'completed'",
      fingerprint: "'" + "0".repeat(64) + "'"
    })) + ";",
    bind(at("insertOrg"), tables.orgs.values({ id: orgId, name: `'${orgName}'` })) + ";",
    bind(at("insertProfile"), tables.profiles.values({ id: profileId, fullName: `'${fullName}'`, orgId })) + ";",
    bind(at("insertLicense"), tables.licenses.values({ id: licenseId, userId: profileId, start: `'${start}'`, end: `'${end}'` })) + ";",
    "COMMIT;",
    ""
  ].join("\n")
}
