import { create, type DescService } from "@bufbuild/protobuf"
import { type Timestamp, TimestampSchema } from "@bufbuild/protobuf/wkt"
import { type Client, ConnectError, createClient, type Transport } from "@connectrpc/connect"
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node"
import { LicenseService } from "../../../src/gen/license/v1beta1/license_pb.js"
import { OrgService } from "../../../src/gen/org/v1beta1/org_pb.js"
import { ProfileService } from "../../../src/gen/profile/v1beta1/profile_pb.js"
import { WorkflowService } from "../../../src/gen/workflow/v1beta1/workflow_pb.js"
import { rfc3339FromTimestamp, timestampFromRfc3339 } from "./timestamps.js"
import { type ClientStyle, type ServiceUrls, type StyleClient, StyleError } from "./StyleClient.js"

const text = (ts: Timestamp | undefined): string => (ts === undefined ? "" : rfc3339FromTimestamp(ts))
const message = (value: string): Timestamp => {
  const { nanos, seconds } = timestampFromRfc3339(value)
  return create(TimestampSchema, { seconds: BigInt(seconds), nanos })
}

const plainOrg = (org: { id: string; name: string } | undefined) => ({ id: org!.id, name: org!.name })
const plainProfile = (p: { id: string; fullName: string; orgId: string } | undefined) => ({
  id: p!.id,
  fullName: p!.fullName,
  orgId: p!.orgId
})

const refused = (error: unknown): never => {
  if (error instanceof ConnectError) throw new StyleError(error.code, error.rawMessage)
  throw error
}

/** A connect-node client (Connect JSON or binary, gRPC, gRPC-Web) behind the common interface. */
const clientWith = (style: string, urls: ServiceUrls, transport: (baseUrl: string) => Transport): StyleClient => {
  const client = <S extends DescService>(service: S, baseUrl: string): Client<S> => createClient(service, transport(baseUrl))
  const orgs = client(OrgService, urls.org)
  const profiles = client(ProfileService, urls.profile)
  const licenses = client(LicenseService, urls.license)
  const workflows = client(WorkflowService, urls.workflow)
  const call = <A>(promise: Promise<A>) => promise.catch(refused)
  const license = (l: { id: string; userId: string; start?: Timestamp | undefined; end?: Timestamp | undefined } | undefined) => ({
    id: l!.id,
    userId: l!.userId,
    start: text(l!.start),
    end: text(l!.end)
  })
  const run = (r: { workflowId: string; orgId: string; profileId: string; licenseId: string; status: string; createdAt?: Timestamp | undefined } | undefined) => ({
    workflowId: r!.workflowId,
    orgId: r!.orgId,
    profileId: r!.profileId,
    licenseId: r!.licenseId,
    status: r!.status,
    createdAt: text(r!.createdAt)
  })
  return {
    style,
    listOrgs: async (page) => {
      const reply = await call(orgs.listOrgs(page))
      return { items: reply.orgs.map(plainOrg), nextPageToken: reply.nextPageToken }
    },
    listProfiles: async (page) => {
      const reply = await call(profiles.listProfiles(page))
      return { items: reply.profiles.map(plainProfile), nextPageToken: reply.nextPageToken }
    },
    listLicenses: async (page) => {
      const reply = await call(licenses.listLicenses(page))
      return { items: reply.licenses.map(license), nextPageToken: reply.nextPageToken }
    },
    listWorkflows: async (page) => {
      const reply = await call(workflows.listOnboardingWorkflows(page))
      return { items: reply.workflows.map(run), nextPageToken: reply.nextPageToken }
    },
    createOrg: async (org) => plainOrg((await call(orgs.createOrg(org))).org),
    getOrg: async (id) => plainOrg((await call(orgs.getOrg({ id }))).org),
    createProfile: async (profile) => plainProfile((await call(profiles.createProfile(profile))).profile),
    getProfile: async (id) => plainProfile((await call(profiles.getProfile({ id }))).profile),
    createLicense: async (l) =>
      license((await call(licenses.createLicense({ ...l, start: message(l.start), end: message(l.end) }))).license),
    getLicense: async (id) => license((await call(licenses.getLicense({ id }))).license),
    createWorkflow: async (request) => {
      const reply = await call(workflows.createOnboardingWorkflow({
        ...(request.workflowId === undefined ? {} : { workflowOptions: { workflowId: request.workflowId } }),
        license: { start: message(request.license.start), end: message(request.license.end) },
        org: request.org,
        profile: request.profile
      }))
      return { workflowId: reply.workflowId, orgId: reply.orgId, profileId: reply.profileId, licenseId: reply.licenseId }
    },
    getWorkflow: async (workflowId) => run((await call(workflows.getOnboardingWorkflow({ workflowId }))).workflow)
  }
}

/**
 * HTTP/2 sessions that have been idle a second are closed by the client: connect-node 2.1 can
 * throw an uncaught error when a server's GOAWAY (its shutdown) reaches an idle session.
 */
const idleConnectionTimeoutMs = 1_000

const style = (name: string, transport: (baseUrl: string) => Transport): ClientStyle => ({
  style: name,
  make: (urls) => clientWith(name, urls, transport)
})

/** connect-node's clients, one per protocol, encoding and HTTP version the services answer in. */
export const connectClients: Array<ClientStyle> = [
  style("Connect JSON, HTTP/1.1", (baseUrl) => createConnectTransport({ baseUrl, httpVersion: "1.1" })),
  style("Connect binary, HTTP/1.1", (baseUrl) =>
    createConnectTransport({ baseUrl, httpVersion: "1.1", useBinaryFormat: true })),
  style("Connect JSON, HTTP/2", (baseUrl) => createConnectTransport({ baseUrl, httpVersion: "2", idleConnectionTimeoutMs })),
  style("Connect binary, HTTP/2", (baseUrl) =>
    createConnectTransport({ baseUrl, httpVersion: "2", useBinaryFormat: true, idleConnectionTimeoutMs })),
  // Get RPCs are NO_SIDE_EFFECTS, so this client reads with HTTP GET.
  style("Connect JSON with GET reads, HTTP/1.1", (baseUrl) =>
    createConnectTransport({ baseUrl, httpVersion: "1.1", useHttpGet: true })),
  style("gRPC-Web, HTTP/1.1", (baseUrl) => createGrpcWebTransport({ baseUrl, httpVersion: "1.1" })),
  style("gRPC (connect-node), HTTP/2", (baseUrl) => createGrpcTransport({ baseUrl, idleConnectionTimeoutMs }))
]
