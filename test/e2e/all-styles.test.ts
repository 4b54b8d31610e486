import { create } from "@bufbuild/protobuf"
import { ConnectError, createClient } from "@connectrpc/connect"
import { createGrpcTransport } from "@connectrpc/connect-node"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { Health, HealthCheckRequestSchema, HealthCheckResponse_ServingStatus } from "../../src/gen/grpc/health/v1/health_pb.js"
import { bufCurlClient, listMethodsWithBufCurl, listServicesWithBufCurl } from "./support/bufCurlClient.js"
import { connectClients } from "./support/connectClient.js"
import { graphqlStyle } from "./support/graphqlClient.js"
import { grpcJsClient } from "./support/grpcJsClient.js"
import { restStyle } from "./support/restClient.js"
import { rpcStyle } from "./support/rpcClient.js"
import { Services } from "../support/Services.js"
import { deployment, ServicesLive } from "./support/Servers.js"
import { type ClientStyle, GrpcCode, type ServiceUrls, type StyleClient, StyleError } from "./support/StyleClient.js"

const styles: Array<ClientStyle> = [
  ...connectClients,
  { style: "gRPC (@grpc/grpc-js)", make: grpcJsClient },
  { style: "buf curl (gRPC, server reflection)", make: bufCurlClient },
  restStyle,
  graphqlStyle,
  rpcStyle
]

/** The gRPC code a call was refused with, or "succeeded". */
const codeOf = (call: Promise<unknown>): Promise<number | "succeeded"> =>
  call.then(
    () => "succeeded",
    (error: unknown) => {
      if (error instanceof StyleError) return error.code
      throw error
    }
  )

const withClients = <A>(use: (clients: Array<StyleClient>, urls: ServiceUrls) => Promise<A>) =>
  Effect.gen(function*() {
    const urls = yield* Services
    const clients = styles.map(({ make }) => make(urls))
    return yield* Effect.promise(() => use(clients, urls)).pipe(
      Effect.ensuring(Effect.sync(() => clients.forEach((c) => c.close?.())))
    )
  })

const period = { start: "2023-11-16T12:00:00Z", end: "2024-11-16T12:00:00.5Z" }

describe(`every access style end to end (${deployment})`, () => {
  layer(ServicesLive, { timeout: 180_000, excludeTestServices: true })((it) => {
    styles.forEach(({ style }, index) => {
      it.effect(`${style}: every operation answers as the contract says`, () =>
        withClients(async (clients) => {
          const client = clients[index]!
          const org = { id: randomUUID(), name: `Acme via ${client.style}` }
          expect(await client.createOrg(org)).toEqual(org)
          expect(await client.getOrg(org.id)).toEqual(org)
          expect(await client.createOrg(org)).toEqual(org) // a retry is safe
          expect(await codeOf(client.createOrg({ ...org, name: "Someone else" }))).toBe(GrpcCode.AlreadyExists)

          const profile = { id: randomUUID(), fullName: "Ada Lovelace", orgId: org.id }
          expect(await client.createProfile(profile)).toEqual(profile)
          expect(await client.getProfile(profile.id)).toEqual(profile)

          const license = { id: randomUUID(), userId: profile.id, ...period }
          expect(await client.createLicense(license)).toEqual(license)
          expect(await client.getLicense(license.id)).toEqual(license)

          const result = await client.createWorkflow({ license: period, org: { name: "Initech" }, profile: { fullName: "Peter" } })
          const run = await client.getWorkflow(result.workflowId)
          expect(run).toMatchObject({ ...result, status: "completed" })
          expect((await client.getOrg(result.orgId)).name).toBe("Initech")
          expect(await client.getProfile(result.profileId)).toEqual({ id: result.profileId, fullName: "Peter", orgId: result.orgId })
          expect(await client.getLicense(result.licenseId)).toEqual({ id: result.licenseId, userId: result.profileId, ...period })
        }))

      it.effect(`${style}: unknown ids are not found, malformed input is an invalid argument`, () =>
        withClients(async (clients) => {
          const client = clients[index]!
          expect(await codeOf(client.getOrg(randomUUID()))).toBe(GrpcCode.NotFound)
          expect(await codeOf(client.getProfile(randomUUID()))).toBe(GrpcCode.NotFound)
          expect(await codeOf(client.getLicense(randomUUID()))).toBe(GrpcCode.NotFound)
          expect(await codeOf(client.getWorkflow(randomUUID()))).toBe(GrpcCode.NotFound)
          expect(await codeOf(client.getOrg("not-a-uuid"))).toBe(GrpcCode.InvalidArgument)
          expect(await codeOf(client.createOrg({ id: randomUUID(), name: " " }))).toBe(GrpcCode.InvalidArgument)
          const flat = { id: randomUUID(), userId: randomUUID(), start: period.start, end: period.start }
          expect(await codeOf(client.createLicense(flat))).toBe(GrpcCode.InvalidArgument)
          const backwards = { license: { start: period.end, end: period.start }, org: { name: "X" }, profile: { fullName: "Y" } }
          expect(await codeOf(client.createWorkflow(backwards))).toBe(GrpcCode.InvalidArgument)
        }))
    })

    it.effect("a record created in one style reads the same in every other", () =>
      withClients(async (clients) => {
        for (const writer of clients) {
          const org = { id: randomUUID(), name: `written by ${writer.style}` }
          const profile = { id: randomUUID(), fullName: "Grace Hopper", orgId: org.id }
          const license = { id: randomUUID(), userId: profile.id, ...period }
          await writer.createOrg(org)
          await writer.createProfile(profile)
          await writer.createLicense(license)
          for (const reader of clients) {
            expect({ style: reader.style, org: await reader.getOrg(org.id) }).toEqual({ style: reader.style, org })
            expect(await reader.getProfile(profile.id)).toEqual(profile)
            expect(await reader.getLicense(license.id)).toEqual(license)
          }
        }
      }))

    it.effect("every style lists and pages through the same rows, newest first, with the same tokens", () =>
      withClients(async (clients) => {
        const [writer] = clients
        const org = await writer!.createOrg({ id: randomUUID(), name: "Listed Inc" })
        const profiles = []
        for (const fullName of ["P1", "P2", "P3", "P4", "P5"]) {
          profiles.unshift(await writer!.createProfile({ id: randomUUID(), fullName, orgId: org.id }))
        }
        const userId = profiles[0]!.id
        const licenses = []
        for (let i = 0; i < 3; i++) licenses.unshift(await writer!.createLicense({ id: randomUUID(), userId, ...period }))
        const runs = []
        for (const name of ["W1", "W2"]) {
          const result = await writer!.createWorkflow({ license: period, org: { name }, profile: { fullName: name } })
          runs.unshift(await writer!.getWorkflow(result.workflowId))
        }

        /** Every page of a list, asked `pageSize` at a time: the rows, and the tokens handed out. */
        const everyPage = async <A>(list: (pageToken: string | undefined) => Promise<{ items: ReadonlyArray<A>; nextPageToken: string }>) => {
          const rows: Array<A> = []
          const tokens: Array<string> = []
          let token: string | undefined
          do {
            const page = await list(token)
            rows.push(...page.items)
            token = page.nextPageToken === "" ? undefined : page.nextPageToken
            if (token !== undefined) tokens.push(token)
          } while (token !== undefined)
          return { rows, tokens }
        }
        const seen: Array<unknown> = []
        for (const client of clients) {
          const byOrg = await everyPage((pageToken) =>
            client.listProfiles({ pageSize: 2, orgId: org.id, ...(pageToken === undefined ? {} : { pageToken }) })
          )
          expect({ style: client.style, rows: byOrg.rows }).toEqual({ style: client.style, rows: profiles })
          const byUser = await everyPage((pageToken) =>
            client.listLicenses({ pageSize: 2, userId, ...(pageToken === undefined ? {} : { pageToken }) })
          )
          expect(byUser.rows).toEqual(licenses)
          // The workflows' rows are the newest of all: they lead the unfiltered lists.
          const newestRuns = await client.listWorkflows({ pageSize: 2, status: "completed" })
          expect(newestRuns.items).toEqual(runs)
          const newestOrgs = await client.listOrgs({ pageSize: 2 })
          expect(newestOrgs.items.map((o) => o.name)).toEqual(["W2", "W1"])
          const everything = await client.listOrgs({})
          expect(everything.items.length).toBeGreaterThanOrEqual(Math.min(20, 3))
          expect(everything.items.length).toBeLessThanOrEqual(20)
          seen.push({ profiles: byOrg.tokens, licenses: byUser.tokens, runs: newestRuns.nextPageToken, orgs: newestOrgs.nextPageToken })
        }
        // Tokens are the service's, not the style's: each style hands out the same ones.
        expect(new Set(seen.map((tokens) => JSON.stringify(tokens))).size).toBe(1)
      }))

    it.effect("a list's bad size, token or filter is an invalid argument in every style", () =>
      withClients(async (clients) => {
        for (const client of clients) {
          const codes = await Promise.all([
            codeOf(client.listOrgs({ pageSize: 101 })),
            codeOf(client.listProfiles({ orgId: "acme" })),
            codeOf(client.listLicenses({ pageToken: "not-a-token" })),
            codeOf(client.listWorkflows({ status: "running" }))
          ])
          expect({ style: client.style, codes }).toEqual({ style: client.style, codes: Array(4).fill(GrpcCode.InvalidArgument) })
        }
      }))

    it.effect("an error message reads the same in every style, field path and all", () =>
      withClients(async (clients) => {
        for (const client of clients) {
          const error = await client.getOrg("not-a-uuid").catch((e: unknown) => e)
          expect({ style: client.style, message: (error as StyleError).message }).toEqual({
            style: client.style,
            message: "id: must be a UUID (8-4-4-4-12 hex digits)"
          })
          const missing = randomUUID()
          const notFound = await client.getOrg(missing).catch((e: unknown) => e)
          expect((notFound as StyleError).message).toBe(`org ${missing} not found`)
        }
      }))

    it.effect("a repeated workflow id answers with the first run, in any style; another request under it is refused", () =>
      withClients(async (clients) => {
        const request = { workflowId: randomUUID(), license: period, org: { name: "Once" }, profile: { fullName: "Only" } }
        const answers = await Promise.all(clients.map((client) => client.createWorkflow(request)))
        expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1)
        expect(answers[0]!.workflowId).toBe(request.workflowId)
        const other = { ...request, org: { name: "Twice" } }
        for (const client of clients) expect(await codeOf(client.createWorkflow(other))).toBe(GrpcCode.AlreadyExists)
      }))

    it.effect("reflection lists each port's service, health and reflection, without proto files", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const expected = {
          org: "org.v1beta1.OrgService",
          profile: "profile.v1beta1.ProfileService",
          license: "license.v1beta1.LicenseService",
          workflow: "workflow.v1beta1.WorkflowService"
        }
        for (const [port, service] of Object.entries(expected)) {
          const listed = yield* Effect.promise(() => listServicesWithBufCurl(urls[port as keyof ServiceUrls]))
          expect(listed.sort()).toEqual(
            [
              service,
              "grpc.health.v1.Health",
              "grpc.reflection.v1.ServerReflection",
              "grpc.reflection.v1alpha.ServerReflection"
            ].sort()
          )
        }
        const methods = yield* Effect.promise(() => listMethodsWithBufCurl(urls.workflow))
        expect(methods).toContain("workflow.v1beta1.WorkflowService/CreateOnboardingWorkflow")
        expect(methods).toContain("workflow.v1beta1.WorkflowService/GetOnboardingWorkflow")
        expect(methods).toContain("workflow.v1beta1.WorkflowService/ListOnboardingWorkflows")
        for (const [port, method] of [["org", "org.v1beta1.OrgService/ListOrgs"], ["profile", "profile.v1beta1.ProfileService/ListProfiles"], ["license", "license.v1beta1.LicenseService/ListLicenses"]] as const) {
          expect(yield* Effect.promise(() => listMethodsWithBufCurl(urls[port]))).toContain(method)
        }
      }))

    it.effect("every port reports SERVING through gRPC health (Check and Watch) and ready through /readyz", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        for (const [name, baseUrl] of Object.entries(urls)) {
          const health = createClient(Health, createGrpcTransport({ baseUrl }))
          const service = {
            org: "org.v1beta1.OrgService",
            profile: "profile.v1beta1.ProfileService",
            license: "license.v1beta1.LicenseService",
            workflow: "workflow.v1beta1.WorkflowService"
          }[name]!
          for (const asked of ["", service]) {
            const reply = yield* Effect.promise(() => health.check(create(HealthCheckRequestSchema, { service: asked })))
            expect(reply.status).toBe(HealthCheckResponse_ServingStatus.SERVING)
          }
          const unknown = yield* Effect.promise(() => health.check({ service: "nope.Service" }).catch((e: ConnectError) => e))
          expect(unknown).toBeInstanceOf(ConnectError)
          expect((unknown as ConnectError).code).toBe(GrpcCode.NotFound)
          const watching = new AbortController()
          const first = yield* Effect.promise(async () => {
            for await (const update of health.watch({ service }, { signal: watching.signal })) return update.status
          })
          watching.abort()
          expect(first).toBe(HealthCheckResponse_ServingStatus.SERVING)
          const healthz = yield* Effect.promise(() => fetch(`${baseUrl}/healthz`))
          expect(healthz.status).toBe(200)
          const readyz = yield* Effect.promise(() => fetch(`${baseUrl}/readyz`))
          expect(readyz.status).toBe(200)
        }
      }))
  })
})
