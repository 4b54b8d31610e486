import * as grpc from "@grpc/grpc-js"
import * as protoLoader from "@grpc/proto-loader"
import { fileURLToPath } from "node:url"
import type { License, Org, Profile, ServiceUrls, StyleClient, WorkflowRequest, WorkflowResult, WorkflowRun } from "./StyleClient.js"
import { StyleError } from "./StyleClient.js"
import { rfc3339FromTimestamp, timestampFromRfc3339 } from "./timestamps.js"

/**
 * The classic Node gRPC stack: @grpc/grpc-js over plaintext HTTP/2 with message types loaded at
 * run time from the .proto files by @grpc/proto-loader (no generated code).
 */

const protoDir = fileURLToPath(new URL("../../../proto/", import.meta.url))

const protoFiles = [
  "org/v1beta1/org.proto",
  "profile/v1beta1/profile.proto",
  "license/v1beta1/license.proto",
  "workflow/v1beta1/workflow.proto"
]

/**
 * camelCase field names (keepCase false), int64 as decimal strings (Timestamp.seconds), enums by
 * name, defaults filled in on decode (absent strings read as "", absent messages as null).
 * `google/protobuf/timestamp.proto` is not under `proto/`: protobufjs (under proto-loader) serves
 * it from its bundled well-known types before it consults `includeDirs`.
 */
const loaderOptions: protoLoader.Options = {
  keepCase: false,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [protoDir]
}

const deadlineMs = 10_000

// ---------------------------------------------------------------------------------------------
// Reading decoded messages without `any`

type Decoded = Readonly<Record<string, unknown>>

const record = (value: unknown, what: string): Decoded => {
  if (typeof value !== "object" || value === null) throw new Error(`response has no ${what}`)
  return value as Decoded
}

const text = (message: Decoded, field: string): string => {
  const value = message[field]
  return typeof value === "string" ? value : ""
}

const timestamp = (message: Decoded, field: string): string => {
  const value = message[field]
  if (value === null || value === undefined) return ""
  const ts = record(value, field)
  return rfc3339FromTimestamp({ seconds: ts["seconds"], nanos: ts["nanos"] })
}

// ---------------------------------------------------------------------------------------------
// Calls

interface UnaryMethod {
  readonly path: string
  readonly requestSerialize: (value: object) => Buffer
  readonly responseDeserialize: (bytes: Buffer) => unknown
}

const targetOf = (baseUrl: string): string => {
  const url = new URL(baseUrl)
  const port = url.port !== "" ? url.port : url.protocol === "https:" ? "443" : "80"
  return `${url.hostname}:${port}`
}

const isServiceError = (error: Error): error is grpc.ServiceError =>
  typeof (error as Partial<grpc.ServiceError>).code === "number"

export const grpcJsClient = (urls: ServiceUrls): StyleClient => {
  const definition = protoLoader.loadSync(protoFiles, loaderOptions)

  const method = (service: string, name: string): UnaryMethod => {
    const serviceDefinition = definition[service]
    const found: unknown = serviceDefinition === undefined ? undefined : (serviceDefinition as Decoded)[name]
    if (typeof found !== "object" || found === null || typeof (found as Decoded)["path"] !== "string") {
      throw new Error(`${service}/${name} is not in the loaded protos`)
    }
    return found as UnaryMethod
  }

  const clients: Array<grpc.Client> = []
  const connect = (baseUrl: string, service: string) => {
    const client = new grpc.Client(targetOf(baseUrl), grpc.credentials.createInsecure())
    clients.push(client)
    return (name: string, request: object): Promise<Decoded> => {
      const { path, requestSerialize, responseDeserialize } = method(service, name)
      return new Promise<Decoded>((resolve, reject) => {
        client.makeUnaryRequest<object, unknown>(
          path,
          requestSerialize,
          responseDeserialize,
          request,
          new grpc.Metadata(),
          { deadline: Date.now() + deadlineMs },
          (error, response) => {
            if (error) {
              reject(isServiceError(error) ? new StyleError(error.code, error.details) : error)
            } else {
              try {
                resolve(record(response, "body"))
              } catch (cause) {
                reject(cause)
              }
            }
          }
        )
      })
    }
  }

  const orgCall = connect(urls.org, "org.v1beta1.OrgService")
  const profileCall = connect(urls.profile, "profile.v1beta1.ProfileService")
  const licenseCall = connect(urls.license, "license.v1beta1.LicenseService")
  const workflowCall = connect(urls.workflow, "workflow.v1beta1.WorkflowService")

  const toOrg = (response: Decoded): Org => {
    const org = record(response["org"], "org")
    return { id: text(org, "id"), name: text(org, "name") }
  }
  const toProfile = (response: Decoded): Profile => {
    const profile = record(response["profile"], "profile")
    return { id: text(profile, "id"), fullName: text(profile, "fullName"), orgId: text(profile, "orgId") }
  }
  const toLicense = (response: Decoded): License => {
    const license = record(response["license"], "license")
    return {
      id: text(license, "id"),
      userId: text(license, "userId"),
      start: timestamp(license, "start"),
      end: timestamp(license, "end")
    }
  }
  const toWorkflowResult = (message: Decoded): WorkflowResult => ({
    workflowId: text(message, "workflowId"),
    orgId: text(message, "orgId"),
    profileId: text(message, "profileId"),
    licenseId: text(message, "licenseId")
  })

  const toRun = (workflow: Decoded): WorkflowRun => ({
    ...toWorkflowResult(workflow),
    status: text(workflow, "status"),
    createdAt: timestamp(workflow, "createdAt")
  })
  const items = (response: Decoded, field: string) => {
    const value = response[field]
    return Array.isArray(value) ? value.map((item) => record(item, field)) : []
  }
  return {
    style: "gRPC (@grpc/grpc-js)",
    listOrgs: async (page) => {
      const response = await orgCall("ListOrgs", page)
      return { items: items(response, "orgs").map((org) => toOrg({ org })), nextPageToken: text(response, "nextPageToken") }
    },
    listProfiles: async (page) => {
      const response = await profileCall("ListProfiles", page)
      return {
        items: items(response, "profiles").map((profile) => toProfile({ profile })),
        nextPageToken: text(response, "nextPageToken")
      }
    },
    listLicenses: async (page) => {
      const response = await licenseCall("ListLicenses", page)
      return {
        items: items(response, "licenses").map((license) => toLicense({ license })),
        nextPageToken: text(response, "nextPageToken")
      }
    },
    listWorkflows: async (page) => {
      const response = await workflowCall("ListOnboardingWorkflows", page)
      return { items: items(response, "workflows").map(toRun), nextPageToken: text(response, "nextPageToken") }
    },
    createOrg: async (org) => toOrg(await orgCall("CreateOrg", { id: org.id, name: org.name })),
    getOrg: async (id) => toOrg(await orgCall("GetOrg", { id })),
    createProfile: async (profile) =>
      toProfile(
        await profileCall("CreateProfile", { id: profile.id, fullName: profile.fullName, orgId: profile.orgId })
      ),
    getProfile: async (id) => toProfile(await profileCall("GetProfile", { id })),
    createLicense: async (license) =>
      toLicense(
        await licenseCall("CreateLicense", {
          id: license.id,
          userId: license.userId,
          start: timestampFromRfc3339(license.start),
          end: timestampFromRfc3339(license.end)
        })
      ),
    getLicense: async (id) => toLicense(await licenseCall("GetLicense", { id })),
    createWorkflow: async (request: WorkflowRequest) =>
      toWorkflowResult(
        await workflowCall("CreateOnboardingWorkflow", {
          ...(request.workflowId === undefined ? {} : { workflowOptions: { workflowId: request.workflowId } }),
          license: {
            start: timestampFromRfc3339(request.license.start),
            end: timestampFromRfc3339(request.license.end)
          },
          org: { name: request.org.name },
          profile: { fullName: request.profile.fullName }
        })
      ),
    getWorkflow: async (workflowId): Promise<WorkflowRun> => {
      const response = await workflowCall("GetOnboardingWorkflow", { workflowId })
      return toRun(record(response["workflow"], "workflow"))
    },
    close: () => {
      for (const client of clients) client.close()
    }
  }
}
