/**
 * What the two GraphQL baselines share, so that they differ only in their resolvers' data access:
 * (e), hand-written on `pg` (graphqlPg.ts), and (g), the minimal Effect peer on `@effect/sql-pg`
 * (graphqlEffect.ts). Bare `node:http`, POST /graphql with a JSON body; graphql-js `parse`,
 * `validate` and `execute`, the parsed and validated document kept by its query text (clients send
 * the same few operations over and over, and parsing plus validating cost more than executing);
 * resolvers on the root value. No query limits, no body bound, no error table beyond a message per
 * refusal.
 *
 * The schema is the services' own (src/transports/graphql/PortSchemas.ts), the four ports' SDL
 * written out here so as not to load the services' code: one process on one port serves all four,
 * since their Query and Mutation field names do not collide. The list fields are in the schema but
 * not answered: nothing measures them.
 */
import { buildSchema, type DocumentNode, execute, type ExecutionResult, GraphQLError, parse, validate } from "graphql"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import type { Created } from "./store.js"

// Kept in step with PortSchemas.ts by hand: org's port declares Query and Mutation, the others
// extend them, so that each port's SDL reads as it does there.
export const schema = buildSchema(`
type Org { id: ID!  name: String! }
type GetOrgResponse { org: Org! }
type CreateOrgResponse { org: Org! }
input CreateOrgInput { id: ID!  name: String! }
type ListOrgsResponse { orgs: [Org!]!  nextPageToken: String! }
type Query {
  org(id: ID!): GetOrgResponse
  orgs(pageSize: Int, pageToken: String): ListOrgsResponse!
}
type Mutation { createOrg(input: CreateOrgInput!): CreateOrgResponse! }

type Profile { id: ID!  fullName: String!  orgId: String! }
type GetProfileResponse { profile: Profile! }
type CreateProfileResponse { profile: Profile! }
input CreateProfileInput { id: ID!  fullName: String!  orgId: String! }
type ListProfilesResponse { profiles: [Profile!]!  nextPageToken: String! }
extend type Query {
  profile(id: ID!): GetProfileResponse
  profiles(pageSize: Int, pageToken: String, orgId: String): ListProfilesResponse!
}
extend type Mutation { createProfile(input: CreateProfileInput!): CreateProfileResponse! }

type License { id: ID!  start: String!  end: String!  userId: String! }
type GetLicenseResponse { license: License! }
type CreateLicenseResponse { license: License! }
input CreateLicenseInput { id: ID!  start: String!  end: String!  userId: String! }
type ListLicensesResponse { licenses: [License!]!  nextPageToken: String! }
extend type Query {
  license(id: ID!): GetLicenseResponse
  licenses(pageSize: Int, pageToken: String, userId: String): ListLicensesResponse!
}
extend type Mutation { createLicense(input: CreateLicenseInput!): CreateLicenseResponse! }

input WorkflowOptions { workflowId: String }
input LicenseInput { start: String!  end: String! }
input OrgInput { name: String! }
input ProfileInput { fullName: String! }
input CreateOnboardingWorkflowInput {
  workflowOptions: WorkflowOptions
  license: LicenseInput!
  org: OrgInput!
  profile: ProfileInput!
}
type CreateOnboardingWorkflowResponse { workflowId: String!  orgId: String!  profileId: String!  licenseId: String! }
type OnboardingWorkflow {
  workflowId: String!
  orgId: String!
  profileId: String!
  licenseId: String!
  status: String!
  createdAt: String!
}
type ListOnboardingWorkflowsResponse { workflows: [OnboardingWorkflow!]!  nextPageToken: String! }
extend type Query {
  onboardingWorkflow(id: ID!): OnboardingWorkflow
  onboardingWorkflows(pageSize: Int, pageToken: String, status: String): ListOnboardingWorkflowsResponse!
}
extend type Mutation { createOnboardingWorkflow(input: CreateOnboardingWorkflowInput!): CreateOnboardingWorkflowResponse! }
`)

export type Args = Record<string, any>

/** A create's answer, `{ <name>: row }`, or the refusal of other content under a taken id. */
export const created = async <A>(name: string, result: Promise<Created<A>>) => {
  const outcome = await result
  if (outcome.kind === "exists") throw new GraphQLError("already exists with other content", { extensions: { code: "ALREADY_EXISTS" } })
  return { [name]: outcome.value }
}

/** A read's answer, `{ <name>: row }`, or null. */
export const found = async <A>(name: string, row: Promise<A | undefined>) => {
  const value = await row
  return value === undefined ? null : { [name]: value }
}

export const notMeasured = () => {
  throw new GraphQLError("not part of the baseline", { extensions: { code: "UNIMPLEMENTED" } })
}

/** The root value's fields a baseline answers; the list fields are answered `notMeasured`. */
export interface Resolvers {
  readonly org: (args: Args) => unknown
  readonly createOrg: (args: Args) => unknown
  readonly profile: (args: Args) => unknown
  readonly createProfile: (args: Args) => unknown
  readonly license: (args: Args) => unknown
  readonly createLicense: (args: Args) => unknown
  readonly createOnboardingWorkflow: (args: Args) => unknown
}

/** Serves the schema on PORT with `resolvers` on the root value; prints "listening on"; `closed` on SIGTERM. */
export const serveGraphql = (resolvers: Resolvers, closed: () => Promise<unknown>) => {
  // graphql-js's default resolver calls a root value's function with (args, context, info).
  const rootValue = {
    ...resolvers,
    orgs: notMeasured,
    profiles: notMeasured,
    licenses: notMeasured,
    onboardingWorkflow: notMeasured,
    onboardingWorkflows: notMeasured
  }

  /** Valid documents by their text, as a hand-written server keeps them; bounded so it cannot grow without end. */
  const documents = new Map<string, DocumentNode>()

  const documentOf = (query: string): DocumentNode | ReadonlyArray<GraphQLError> => {
    const known = documents.get(query)
    if (known !== undefined) return known
    let document: DocumentNode
    try {
      document = parse(query)
    } catch (error) {
      return [error as GraphQLError]
    }
    const errors = validate(schema, document)
    if (errors.length > 0) return errors
    if (documents.size >= 500) documents.delete(documents.keys().next().value!)
    documents.set(query, document)
    return document
  }

  const send = (response: http.ServerResponse, status: number, body: ExecutionResult) => {
    const text = JSON.stringify(body)
    response.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text) })
    response.end(text)
  }

  const readText = (request: http.IncomingMessage): Promise<string> =>
    new Promise((resolve, reject) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
      request.on("error", reject)
    })

  const answer = async (request: http.IncomingMessage, response: http.ServerResponse) => {
    if (request.method !== "POST" || request.url !== "/graphql") {
      return send(response, 404, { errors: [new GraphQLError("POST /graphql only")] })
    }
    let params: { query?: unknown; variables?: unknown; operationName?: unknown }
    try {
      params = JSON.parse(await readText(request))
    } catch {
      return send(response, 400, { errors: [new GraphQLError("body is not JSON")] })
    }
    if (typeof params.query !== "string") return send(response, 400, { errors: [new GraphQLError("no query")] })
    const document = documentOf(params.query)
    if (!("kind" in document)) return send(response, 400, { errors: document })
    const result = await execute({
      schema,
      document,
      rootValue,
      variableValues: params.variables as Record<string, unknown> | undefined,
      operationName: typeof params.operationName === "string" ? params.operationName : undefined
    })
    // GraphQL over HTTP with application/json: 200 whenever execution began.
    send(response, 200, result)
  }

  const server = http.createServer((request, response) => {
    answer(request, response).catch((error: unknown) =>
      send(response, 500, { errors: [new GraphQLError(`internal error: ${String(error)}`)] })
    )
  })
  server.listen(Number(process.env["PORT"] ?? 0), "127.0.0.1", () => {
    console.log(`listening on ${(server.address() as AddressInfo).port}`)
  })
  process.on("SIGTERM", () => server.close(() => void closed()))
}
