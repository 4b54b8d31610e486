import { timestampFromDate } from "@bufbuild/protobuf/wkt"
import { ConnectError, createClient } from "@connectrpc/connect"
import { createConnectTransport } from "@connectrpc/connect-node"
import * as grpc from "@grpc/grpc-js"
import * as protoLoader from "@grpc/proto-loader"
import { Cause, Effect, Exit } from "effect"
import { join } from "node:path"
import { pathToFileURL } from "node:url"

/*
 * Each style as a caller uses it, reduced to what the walkthrough asks of it: create and read a
 * profile, list an org's profiles, start the workflow. A refusal throws a `Refused` with the gRPC
 * code (contract §8) and the message.
 */

export class Refused extends Error {
  constructor(code, message) {
    super(message)
    this.code = code
  }
}

const fromScratch = (scratch, path) => import(pathToFileURL(join(scratch, path)).href)

const rest = (urls) => {
  const call = async (url, method = "GET", body) => {
    const response = await fetch(url, body === undefined ? { method } : { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
    const answer = await response.json()
    if (!response.ok) throw new Refused(answer.code, answer.message)
    return answer
  }
  return {
    style: "REST",
    createProfile: async ({ id, ...fields }) => (await call(`${urls.profile}/profiles/${id}`, "PUT", fields)).profile,
    getProfile: async (id) => (await call(`${urls.profile}/profiles/${id}`)).profile,
    listProfiles: async (orgId) => (await call(`${urls.profile}/profiles?orgId=${orgId}`)).profiles,
    createWorkflow: (request) => call(`${urls.workflow}/workflow/workflows/onboarding`, "POST", request)
  }
}

const connect = async (scratch, urls, binary) => {
  const { ProfileService } = await fromScratch(scratch, "dist/gen/profile/v1beta1/profile_pb.js")
  const { WorkflowService } = await fromScratch(scratch, "dist/gen/workflow/v1beta1/workflow_pb.js")
  const transport = (baseUrl) => createConnectTransport({ baseUrl, httpVersion: "1.1", useBinaryFormat: binary })
  const profiles = createClient(ProfileService, transport(urls.profile))
  const workflows = createClient(WorkflowService, transport(urls.workflow))
  const call = (promise) => promise.catch((error) => {
    throw error instanceof ConnectError ? new Refused(error.code, error.rawMessage) : error
  })
  const plain = ({ id, fullName, orgId, nickname }) => ({ id, fullName, orgId, ...(nickname === undefined ? {} : { nickname }) })
  const time = (text) => timestampFromDate(new Date(text))
  return {
    style: binary ? "Connect binary" : "Connect JSON",
    createProfile: async (profile) => plain((await call(profiles.createProfile(profile))).profile),
    getProfile: async (id) => plain((await call(profiles.getProfile({ id }))).profile),
    listProfiles: async (orgId) => (await call(profiles.listProfiles({ orgId }))).profiles.map(plain),
    createWorkflow: async ({ license, ...request }) =>
      call(workflows.createOnboardingWorkflow({ ...request, license: { start: time(license.start), end: time(license.end) } }))
  }
}

/** @grpc/grpc-js with the copy's .proto files loaded at run time: no generated code between. */
const grpcJs = (scratch, urls) => {
  const definition = protoLoader.loadSync(["profile/v1beta1/profile.proto"], {
    keepCase: false,
    defaults: false,
    oneofs: true,
    includeDirs: [join(scratch, "proto")]
  })
  const Service = grpc.loadPackageDefinition(definition).profile.v1beta1.ProfileService
  const client = new Service(new URL(urls.profile).host, grpc.credentials.createInsecure())
  const call = (method, request) =>
    new Promise((resolve, reject) =>
      client[method](request, { deadline: Date.now() + 10_000 }, (error, reply) =>
        error ? reject(new Refused(error.code, error.details)) : resolve(reply)))
  const plain = ({ id, fullName, orgId, nickname }) => ({ id, fullName, orgId, ...(nickname == null ? {} : { nickname }) })
  return {
    style: "gRPC (@grpc/grpc-js)",
    createProfile: async (profile) => plain((await call("createProfile", profile)).profile),
    getProfile: async (id) => plain((await call("getProfile", { id })).profile),
    listProfiles: async (orgId) => (await call("listProfiles", { orgId })).profiles.map(plain),
    close: () => client.close()
  }
}

const graphql = (urls) => {
  const call = async (url, query, variables) => {
    const response = await fetch(`${url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/graphql-response+json" },
      body: JSON.stringify({ query, variables })
    })
    const body = await response.json()
    const error = body.errors?.[0]
    if (error !== undefined) throw new Refused(error.extensions?.code === "INVALID_ARGUMENT" ? 3 : 2, error.message)
    return body.data
  }
  const fields = "id fullName orgId nickname"
  const plain = ({ nickname, ...profile }) => ({ ...profile, ...(nickname == null ? {} : { nickname }) })
  return {
    style: "GraphQL",
    createProfile: async (input) =>
      plain((await call(urls.profile, `mutation($input: CreateProfileInput!) { createProfile(input: $input) { profile { ${fields} } } }`, { input }))
        .createProfile.profile),
    getProfile: async (id) => plain((await call(urls.profile, `query($id: ID!) { profile(id: $id) { profile { ${fields} } } }`, { id })).profile.profile),
    listProfiles: async (orgId) =>
      (await call(urls.profile, `query($orgId: String) { profiles(orgId: $orgId) { profiles { ${fields} } } }`, { orgId })).profiles.profiles.map(plain),
    createWorkflow: async (input) =>
      (await call(urls.workflow, "mutation($input: CreateOnboardingWorkflowInput!) { createOnboardingWorkflow(input: $input) { profileId } }", { input }))
        .createOnboardingWorkflow
  }
}

/** The client package's typed @effect/rpc client, from the copy's build. */
const rpc = async (scratch, urls) => {
  const { ProfileOperations, rpcClient } = await fromScratch(scratch, "packages/client/dist/client/index.js")
  const run = async (use) => {
    const exit = await Effect.runPromiseExit(Effect.scoped(Effect.flatMap(rpcClient(ProfileOperations, `${urls.profile}/rpc`), use)))
    if (Exit.isSuccess(exit)) return { ...exit.value }
    const failure = Cause.failureOption(exit.cause)
    if (failure._tag === "Some") throw new Refused(failure.value._tag === "InvalidArgument" ? 3 : 2, failure.value.message)
    throw new Error(Cause.pretty(exit.cause))
  }
  return {
    style: "/rpc (the client package)",
    createProfile: (profile) => run((client) => client.CreateProfile(profile)),
    getProfile: (id) => run((client) => client.GetProfile({ id })),
    listProfiles: async (orgId) => (await run((client) => client.ListProfiles({ orgId }))).profiles.map((profile) => ({ ...profile }))
  }
}

/** Every style the walkthrough checks, pointed at the running process. */
export const stylesOf = async (scratch, urls) => [
  rest(urls),
  await connect(scratch, urls, false),
  await connect(scratch, urls, true),
  grpcJs(scratch, urls),
  graphql(urls),
  await rpc(scratch, urls)
]
