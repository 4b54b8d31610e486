import { timestampFromDate } from "@bufbuild/protobuf/wkt"
import { randomUUID } from "node:crypto"
import { CreateLicenseRequestSchema } from "../../../src/gen/license/v1beta1/license_pb.js"
import { CreateOrgRequestSchema } from "../../../src/gen/org/v1beta1/org_pb.js"
import { CreateProfileRequestSchema } from "../../../src/gen/profile/v1beta1/profile_pb.js"
import { CreateOnboardingWorkflowRequestSchema } from "../../../src/gen/workflow/v1beta1/workflow_pb.js"
import type { ServiceUrls } from "../../e2e/support/StyleClient.js"
import { envelope, protoBytes, rpcRequest } from "./wire.js"

/**
 * Every state-changing route of every style, with the body its own clients send, for the tests
 * that send them as a browser may send them cross-site (test/reliability/cross-site.test.ts,
 * test/e2e/cross-site-browser.test.ts).
 */

/** The Content-Types a browser sends cross-site without a preflight (undefined: none at all). */
export const simpleContentTypes: ReadonlyArray<string | undefined> = [
  undefined,
  "text/plain",
  "text/plain;charset=UTF-8",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=----cross-site"
]

export const license = { start: "2025-01-01T00:00:00Z", end: "2026-01-01T00:00:00Z" }
const timestamps = { start: timestampFromDate(new Date(license.start)), end: timestampFromDate(new Date(license.end)) }

/** One attempt at a state-changing route: fresh ids, the body its clients send, where to look for what it made. */
export interface Attempt {
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

export const org = (style: string, id = randomUUID()) => ({ id, name: `Cross-site ${style}` })
const profile = (style: string, id = randomUUID()) => ({ id, fullName: `Cross-site ${style}`, orgId: randomUUID() })
const licenseOf = (id = randomUUID()) => ({ id, userId: randomUUID(), ...license })
const workflow = (style: string, workflowId = randomUUID()) => ({
  workflowOptions: { workflowId },
  license,
  org: { name: `Cross-site ${style}` },
  profile: { fullName: "Cross Site" }
})

const json = "application/json"
export const grpcWeb = "application/grpc-web+proto"
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
      const path = `/${plural}/${id}`
      return { route: `REST ${method} /${plural}/{id}`, port, method, path, body: JSON.stringify(fields), ownType: json, readBack: path }
    }
    return [
      rest("POST"),
      rest("PUT"),
      (): Attempt => {
        const record = make("Connect")
        const body = JSON.stringify(record)
        return { route: `Connect POST /${service}`, port, method: "POST", path: `/${service}`, body, ownType: json, readBack: `/${plural}/${record.id}` }
      },
      (): Attempt => {
        const record = make("gRPC-Web")
        const body = envelope(proto(record))
        return { route: `gRPC-Web POST /${service}`, port, method: "POST", path: `/${service}`, body, ownType: grpcWeb, readBack: `/${plural}/${record.id}` }
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
        const body = rpcRequest(`Create${typeName}`, record)
        return { route: "POST /rpc", port, method: "POST", path: "/rpc", body, ownType: json, readBack: `/${plural}/${record.id}` }
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

