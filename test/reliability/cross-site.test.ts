import { timestampFromDate } from "@bufbuild/protobuf/wkt"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { CreateLicenseRequestSchema } from "../../src/gen/license/v1beta1/license_pb.js"
import { CreateOrgRequestSchema } from "../../src/gen/org/v1beta1/org_pb.js"
import { CreateProfileRequestSchema } from "../../src/gen/profile/v1beta1/profile_pb.js"
import { CreateOnboardingWorkflowRequestSchema } from "../../src/gen/workflow/v1beta1/workflow_pb.js"
import { Services } from "../e2e/support/Servers.js"
import type { ServiceUrls } from "../e2e/support/StyleClient.js"
import { inProcessServers, SqlServices } from "../support/InProcessServers.js"
import { rowCounts } from "../support/rows.js"
import { testDatabaseKind } from "../support/TestDatabase.js"
import { envelope, httpCall, protoBytes, rpcRequest } from "./support/wire.js"

/**
 * What a web page can make the user's browser send to any site without asking it first (no CORS
 * preflight): GET, HEAD and POST with no Content-Type, `text/plain`,
 * `application/x-www-form-urlencoded` or `multipart/form-data` (an HTML form, a `fetch` with
 * `mode: "no-cors"`, `navigator.sendBeacon`). Such a request to a state-changing route of any
 * style must create nothing, or every page the user visits could create orgs and workflows on a
 * service without a token. Each route is walked with each of those types (and none), its body
 * the one that route's own clients send, then read back; the same body with the route's own type
 * creates the record, so the walk is of routes that really create. The browser itself sends
 * them in test/e2e/cross-site-browser.test.ts.
 */

/** The Content-Types a browser sends cross-site without a preflight (undefined: none at all). */
export const simpleContentTypes: ReadonlyArray<string | undefined> = [
  undefined,
  "text/plain",
  "text/plain;charset=UTF-8",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=----cross-site"
]

const license = { start: "2025-01-01T00:00:00Z", end: "2026-01-01T00:00:00Z" }
const timestamps = { start: timestampFromDate(new Date(license.start)), end: timestampFromDate(new Date(license.end)) }

/** One attempt at a state-changing route: fresh ids, the body its clients send, where to look for what it made. */
interface Attempt {
  readonly route: string
  readonly port: keyof ServiceUrls
  readonly method: "POST" | "PUT"
  readonly path: string
  readonly body: string | Uint8Array
  /** The Content-Type the route's own clients send. */
  readonly ownType: string
  /** The REST path that reads what the attempt would have created. */
  readonly readBack: string
}

const org = (style: string, id = randomUUID()) => ({ id, name: `Cross-site ${style}` })
const profile = (style: string, id = randomUUID()) => ({ id, fullName: `Cross-site ${style}`, orgId: randomUUID() })
const licenseOf = (id = randomUUID()) => ({ id, userId: randomUUID(), ...license })
const workflow = (style: string, workflowId = randomUUID()) => ({
  workflowOptions: { workflowId },
  license,
  org: { name: `Cross-site ${style}` },
  profile: { fullName: "Cross Site" }
})

const json = "application/json"
const grpcWeb = "application/grpc-web+proto"
const graphqlBody = (field: string, inputType: string, input: unknown, selection: string) =>
  JSON.stringify({ query: `mutation($i: ${inputType}!) { ${field}(input: $i) { ${selection} } }`, variables: { i: input } })

/** Every state-changing route of every style, each as a maker of fresh attempts. */
export const stateChangingRoutes: ReadonlyArray<() => Attempt> = [
  ...(["org", "profile", "license"] as const).flatMap((port) => {
    const plural = `${port}s`
    const service = `${port}.v1beta1.${port[0]!.toUpperCase()}${port.slice(1)}Service/Create${port[0]!.toUpperCase()}${port.slice(1)}`
    const make = (style: string) => {
      if (port === "org") return org(style)
      if (port === "profile") return profile(style)
      return licenseOf()
    }
    const proto = (record: any) =>
      port === "org"
        ? protoBytes(CreateOrgRequestSchema, record)
        : port === "profile"
        ? protoBytes(CreateProfileRequestSchema, record)
        : protoBytes(CreateLicenseRequestSchema, { id: record.id, userId: record.userId, ...timestamps })
    const typeName = port[0]!.toUpperCase() + port.slice(1)
    const selection = `${port} { id }`
    const rest = (method: "POST" | "PUT") => (): Attempt => {
      const { id, ...fields } = make(`REST ${method}`)
      return { route: `REST ${method} /${plural}/{id}`, port, method, path: `/${plural}/${id}`, body: JSON.stringify(fields), ownType: json, readBack: `/${plural}/${id}` }
    }
    return [
      rest("POST"),
      rest("PUT"),
      (): Attempt => {
        const record = make("Connect")
        return { route: `Connect POST /${service}`, port, method: "POST", path: `/${service}`, body: JSON.stringify(record), ownType: json, readBack: `/${plural}/${record.id}` }
      },
      (): Attempt => {
        const record = make("gRPC-Web")
        return { route: `gRPC-Web POST /${service}`, port, method: "POST", path: `/${service}`, body: envelope(proto(record)), ownType: grpcWeb, readBack: `/${plural}/${record.id}` }
      },
      (): Attempt => {
        const record = make("GraphQL")
        return {
          route: "GraphQL POST /graphql",
          port,
          method: "POST",
          path: "/graphql",
          body: graphqlBody(`create${typeName}`, `Create${typeName}Input`, record, selection),
          ownType: json,
          readBack: `/${plural}/${record.id}`
        }
      },
      (): Attempt => {
        const record = make("/rpc")
        return { route: "POST /rpc", port, method: "POST", path: "/rpc", body: rpcRequest(`Create${typeName}`, record), ownType: json, readBack: `/${plural}/${record.id}` }
      }
    ]
  }),
  (): Attempt => {
    const request = workflow("REST")
    return {
      route: "REST POST /workflow/workflows/onboarding",
      port: "workflow",
      method: "POST",
      path: "/workflow/workflows/onboarding",
      body: JSON.stringify(request),
      ownType: json,
      readBack: `/workflow/workflows/onboarding/${request.workflowOptions.workflowId}`
    }
  },
  (): Attempt => {
    const request = workflow("Connect")
    return {
      route: "Connect POST /workflow.v1beta1.WorkflowService/CreateOnboardingWorkflow",
      port: "workflow",
      method: "POST",
      path: "/workflow.v1beta1.WorkflowService/CreateOnboardingWorkflow",
      body: JSON.stringify(request),
      ownType: json,
      readBack: `/workflow/workflows/onboarding/${request.workflowOptions.workflowId}`
    }
  },
  (): Attempt => {
    const workflowId = randomUUID()
    const body = protoBytes(CreateOnboardingWorkflowRequestSchema, {
      workflowOptions: { workflowId },
      license: timestamps,
      org: { name: "Cross-site gRPC-Web" },
      profile: { fullName: "Cross Site" }
    })
    return {
      route: "gRPC-Web POST /workflow.v1beta1.WorkflowService/CreateOnboardingWorkflow",
      port: "workflow",
      method: "POST",
      path: "/workflow.v1beta1.WorkflowService/CreateOnboardingWorkflow",
      body: envelope(body),
      ownType: grpcWeb,
      readBack: `/workflow/workflows/onboarding/${workflowId}`
    }
  },
  (): Attempt => {
    const request = workflow("GraphQL")
    return {
      route: "GraphQL POST /graphql",
      port: "workflow",
      method: "POST",
      path: "/graphql",
      body: graphqlBody("createOnboardingWorkflow", "CreateOnboardingWorkflowInput", request, "workflowId"),
      ownType: json,
      readBack: `/workflow/workflows/onboarding/${request.workflowOptions.workflowId}`
    }
  },
  (): Attempt => {
    const request = workflow("/rpc")
    return {
      route: "POST /rpc",
      port: "workflow",
      method: "POST",
      path: "/rpc",
      body: rpcRequest("CreateOnboardingWorkflow", request),
      ownType: json,
      readBack: `/workflow/workflows/onboarding/${request.workflowOptions.workflowId}`
    }
  }
]

/** Creates over GET, which a link, an image or a navigation sends: GraphQL mutations and Connect GET of a create. */
const getRoutes = (): ReadonlyArray<{ readonly route: string; readonly port: keyof ServiceUrls; readonly path: string; readonly readBack: string }> => {
  const orgId = randomUUID()
  const workflowId = randomUUID()
  const message = encodeURIComponent(JSON.stringify(org("Connect GET", orgId)))
  const mutation = `mutation { createOrg(input: { id: "${randomUUID()}", name: "Cross-site GET" }) { org { id } } }`
  const workflowMutation = `mutation { createOnboardingWorkflow(input: { workflowOptions: { workflowId: "${workflowId}" }, ` +
    `license: { start: "${license.start}", end: "${license.end}" }, org: { name: "GET" }, profile: { fullName: "GET" } }) { workflowId } }`
  return [
    {
      route: "Connect GET /org.v1beta1.OrgService/CreateOrg",
      port: "org",
      path: `/org.v1beta1.OrgService/CreateOrg?connect=v1&encoding=json&message=${message}`,
      readBack: `/orgs/${orgId}`
    },
    {
      route: "GraphQL GET /graphql?query=mutation",
      port: "org",
      path: `/graphql?query=${encodeURIComponent(mutation)}`,
      readBack: `/orgs/${/"([0-9a-f-]{36})"/.exec(mutation)![1]}`
    },
    {
      route: "GraphQL GET /graphql?query=mutation (workflow)",
      port: "workflow",
      path: `/graphql?query=${encodeURIComponent(workflowMutation)}`,
      readBack: `/workflow/workflows/onboarding/${workflowId}`
    }
  ]
}

const send = (urls: ServiceUrls, attempt: Attempt, contentType: string | undefined) =>
  httpCall(`${urls[attempt.port]}${attempt.path}`, {
    method: attempt.method,
    // A body of bytes: fetch adds no Content-Type of its own to one (it would add text/plain to a string).
    body: typeof attempt.body === "string" ? Buffer.from(attempt.body) : attempt.body,
    ...(contentType === undefined ? {} : { headers: { "content-type": contentType } })
  })

const exists = (urls: ServiceUrls, port: keyof ServiceUrls, path: string) =>
  fetch(`${urls[port]}${path}`).then((reply) => reply.status)

describe(`cross-site requests create nothing (${testDatabaseKind})`, () => {
  layer(inProcessServers({}, SqlServices), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("every state-changing route creates its record with its own Content-Type (the walk is of real routes)", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        for (const make of stateChangingRoutes) {
          const attempt = make()
          const reply = yield* Effect.promise(() => send(urls, attempt, attempt.ownType))
          const where = { route: attempt.route, port: attempt.port }
          expect({ ...where, status: reply.status }).toEqual({ ...where, status: 200 })
          expect({ ...where, read: yield* Effect.promise(() => exists(urls, attempt.port, attempt.readBack)) }).toEqual({ ...where, read: 200 })
        }
      }))

    it.effect("no route takes a body with no Content-Type, text/plain, a form's or multipart: 415, nothing stored", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const before = yield* rowCounts
        const answers: Array<unknown> = []
        for (const make of stateChangingRoutes) {
          for (const contentType of simpleContentTypes) {
            const attempt = make()
            const reply = yield* Effect.promise(() => send(urls, attempt, contentType))
            const read = yield* Effect.promise(() => exists(urls, attempt.port, attempt.readBack))
            answers.push({ port: attempt.port, route: attempt.route, contentType, status: reply.status, read })
          }
        }
        expect(answers).toEqual(answers.map((answer: any) => ({ ...answer, status: 415, read: 404 })))
        expect(yield* rowCounts).toEqual(before)
      }))

    it.effect("a create over GET (a GraphQL mutation, a Connect GET of a create) is refused with 405, nothing stored", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const before = yield* rowCounts
        for (const route of getRoutes()) {
          const reply = yield* Effect.promise(() => httpCall(`${urls[route.port]}${route.path}`))
          const read = yield* Effect.promise(() => exists(urls, route.port, route.readBack))
          expect({ route: route.route, status: reply.status, read }).toEqual({ route: route.route, status: 405, read: 404 })
        }
        expect(yield* rowCounts).toEqual(before)
      }))
  })
})
