import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import type { License, Org, Profile, ServiceUrls, StyleClient, WorkflowResult, WorkflowRun } from "./StyleClient.js"
import { codeFromName, StyleError } from "./StyleClient.js"

/**
 * `buf curl` as an operator would use it: gRPC over plaintext HTTP/2, no schema on the command
 * line, so buf learns the messages from the server's reflection service. Requests and responses
 * are proto3 JSON.
 *
 * On a refused call buf exits non-zero (with the gRPC code times 8, e.g. 24 for invalid_argument)
 * and writes `{"code": "invalid_argument", "message": "..."}` to stderr; client-side failures
 * (bad JSON, unknown service, no connection) are a plain `Failure: ...` line instead.
 */

const bufPath = fileURLToPath(new URL("../../../node_modules/.bin/buf", import.meta.url))
const timeoutMs = 20_000
const commonArgs = ["curl", "--protocol", "grpc", "--http2-prior-knowledge"] as const

const run = promisify(execFile)

interface ExecFailure extends Error {
  readonly code?: number | string
  readonly killed?: boolean
  readonly signal?: NodeJS.Signals | null
  readonly stdout?: string
  readonly stderr?: string
}

const parseJsonObject = (output: string): Readonly<Record<string, unknown>> | undefined => {
  const start = output.indexOf("{")
  const end = output.lastIndexOf("}")
  if (start < 0 || end < start) return undefined
  try {
    const parsed: unknown = JSON.parse(output.slice(start, end + 1))
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Readonly<Record<string, unknown>>)
      : undefined
  } catch {
    return undefined
  }
}

/** An error buf printed for a call the server refused, as a StyleError; anything else as an Error. */
const failureOf = (error: unknown, what: string): Error => {
  const failure = error as ExecFailure
  const stdout = failure.stdout ?? ""
  const stderr = failure.stderr ?? ""
  if (failure.killed === true || failure.signal) {
    return new Error(`buf curl ${what} was stopped (${failure.signal ?? "killed"}) after ${timeoutMs} ms`)
  }
  for (const output of [stderr, stdout]) {
    const body = parseJsonObject(output)
    const name = body?.["code"]
    if (typeof name === "string" && codeFromName[name] !== undefined) {
      const message = body?.["message"]
      return new StyleError(codeFromName[name], typeof message === "string" ? message : "")
    }
  }
  const output = [stdout.trim(), stderr.trim()].filter((part) => part !== "").join("\n")
  return new Error(`buf curl ${what} failed (exit ${String(failure.code)}): ${output || failure.message}`)
}

const buf = async (args: ReadonlyArray<string>, what: string): Promise<string> => {
  try {
    const { stdout } = await run(bufPath, [...commonArgs, ...args], {
      timeout: timeoutMs,
      maxBuffer: 16 * 1024 * 1024,
      encoding: "utf8"
    })
    return stdout
  } catch (error) {
    throw failureOf(error, what)
  }
}

type Json = Readonly<Record<string, unknown>>

const invoke = async (baseUrl: string, method: string, request: object): Promise<Json> => {
  const url = `${baseUrl.replace(/\/+$/, "")}/${method}`
  const stdout = await buf(["-d", JSON.stringify(request), url], method)
  const body = parseJsonObject(stdout)
  if (body === undefined) throw new Error(`buf curl ${method}: unreadable output: ${stdout}`)
  return body
}

const lines = (output: string): Array<string> =>
  output.split("\n").map((line) => line.trim()).filter((line) => line !== "")

/** `buf curl --list-services`: the fully-qualified service names the server reflects. */
export const listServicesWithBufCurl = async (baseUrl: string): Promise<Array<string>> =>
  lines(await buf(["--list-services", baseUrl], "--list-services"))

/** `buf curl --list-methods`: `package.Service/Method` for every method the server reflects. */
export const listMethodsWithBufCurl = async (baseUrl: string): Promise<Array<string>> =>
  lines(await buf(["--list-methods", baseUrl], "--list-methods"))

// proto3 JSON leaves out fields equal to their default, so an absent string is "".
const text = (message: Json, field: string): string => {
  const value = message[field]
  return typeof value === "string" ? value : ""
}

/**
 * buf prints Timestamps with 0, 3, 6 or 9 fractional digits ("...00.500Z"); the contract's form
 * has no trailing zeros ("...00.5Z").
 */
const timestamp = (message: Json, field: string): string =>
  text(message, field).replace(/\.(\d*[1-9])?0*Z$/, (_match, kept: string | undefined) =>
    kept === undefined ? "Z" : `.${kept}Z`)

const nested = (message: Json, field: string): Json => {
  const value = message[field]
  // An empty message is printed as {} — or, at top level, its field is left out altogether.
  return typeof value === "object" && value !== null ? (value as Json) : {}
}

const toOrg = (org: Json): Org => ({ id: text(org, "id"), name: text(org, "name") })
const toProfile = (profile: Json): Profile => ({
  id: text(profile, "id"),
  fullName: text(profile, "fullName"),
  orgId: text(profile, "orgId")
})
const toLicense = (license: Json): License => ({
  id: text(license, "id"),
  userId: text(license, "userId"),
  start: timestamp(license, "start"),
  end: timestamp(license, "end")
})
const toWorkflowResult = (message: Json): WorkflowResult => ({
  workflowId: text(message, "workflowId"),
  orgId: text(message, "orgId"),
  profileId: text(message, "profileId"),
  licenseId: text(message, "licenseId")
})

const toRun = (workflow: Json): WorkflowRun => ({
  ...toWorkflowResult(workflow),
  status: text(workflow, "status"),
  createdAt: timestamp(workflow, "createdAt")
})

/** proto3 JSON leaves out an empty list and an empty next_page_token. */
const listed = <A>(reply: Json, field: string, item: (json: Json) => A) => ({
  items: (Array.isArray(reply[field]) ? (reply[field] as Array<Json>) : []).map(item),
  nextPageToken: text(reply, "nextPageToken")
})

export const bufCurlClient = (urls: ServiceUrls): StyleClient => ({
  style: "buf curl (gRPC, reflection)",
  listOrgs: async (page) => listed(await invoke(urls.org, "org.v1beta1.OrgService/ListOrgs", page), "orgs", toOrg),
  listProfiles: async (page) =>
    listed(await invoke(urls.profile, "profile.v1beta1.ProfileService/ListProfiles", page), "profiles", toProfile),
  listLicenses: async (page) =>
    listed(await invoke(urls.license, "license.v1beta1.LicenseService/ListLicenses", page), "licenses", toLicense),
  listWorkflows: async (page) =>
    listed(
      await invoke(urls.workflow, "workflow.v1beta1.WorkflowService/ListOnboardingWorkflows", page),
      "workflows",
      toRun
    ),
  createOrg: async (org) =>
    toOrg(nested(await invoke(urls.org, "org.v1beta1.OrgService/CreateOrg", { id: org.id, name: org.name }), "org")),
  getOrg: async (id) => toOrg(nested(await invoke(urls.org, "org.v1beta1.OrgService/GetOrg", { id }), "org")),
  createProfile: async (profile) =>
    toProfile(
      nested(
        await invoke(urls.profile, "profile.v1beta1.ProfileService/CreateProfile", {
          id: profile.id,
          fullName: profile.fullName,
          orgId: profile.orgId
        }),
        "profile"
      )
    ),
  getProfile: async (id) =>
    toProfile(nested(await invoke(urls.profile, "profile.v1beta1.ProfileService/GetProfile", { id }), "profile")),
  createLicense: async (license) =>
    toLicense(
      nested(
        await invoke(urls.license, "license.v1beta1.LicenseService/CreateLicense", {
          id: license.id,
          userId: license.userId,
          start: license.start,
          end: license.end
        }),
        "license"
      )
    ),
  getLicense: async (id) =>
    toLicense(nested(await invoke(urls.license, "license.v1beta1.LicenseService/GetLicense", { id }), "license")),
  createWorkflow: async (request) =>
    toWorkflowResult(
      await invoke(urls.workflow, "workflow.v1beta1.WorkflowService/CreateOnboardingWorkflow", {
        ...(request.workflowId === undefined ? {} : { workflowOptions: { workflowId: request.workflowId } }),
        license: { start: request.license.start, end: request.license.end },
        org: { name: request.org.name },
        profile: { fullName: request.profile.fullName }
      })
    ),
  getWorkflow: async (workflowId): Promise<WorkflowRun> => {
    return toRun(nested(
      await invoke(urls.workflow, "workflow.v1beta1.WorkflowService/GetOnboardingWorkflow", { workflowId }),
      "workflow"
    ))
  }
})
