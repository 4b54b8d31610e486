import { describe, expect, layer } from "@effect/vitest"
import { Context, Deferred, Effect, Layer, Logger } from "effect"
import * as http from "node:http"
import * as http2 from "node:http2"
import type { AddressInfo } from "node:net"
import { NotFound, Unavailable } from "../../src/domain/Errors.js"
import { OrgId } from "../../src/domain/Ids.js"
import { Licenses } from "../../src/services/Licenses.js"
import type { LicenseHandlers } from "../../src/contract/LicenseOperations.js"
import { LicenseOperationsLive } from "../../src/operations/LicenseOperationsLive.js"
import type { OrgHandlers } from "../../src/contract/OrgOperations.js"
import { OrgOperationsLive } from "../../src/operations/OrgOperationsLive.js"
import type { ProfileHandlers } from "../../src/contract/ProfileOperations.js"
import { ProfileOperationsLive } from "../../src/operations/ProfileOperationsLive.js"
import type { WorkflowHandlers } from "../../src/contract/WorkflowOperations.js"
import { WorkflowOperationsLive } from "../../src/operations/WorkflowOperationsLive.js"
import { Orgs } from "../../src/services/Orgs.js"
import { Profiles } from "../../src/services/Profiles.js"
import { graphqlHandler } from "../../src/transports/graphql/GraphqlHandler.js"
import { licenseGraphql, orgGraphql, profileGraphql, workflowGraphql } from "../../src/transports/graphql/PortSchemas.js"
import type { RequestHandler } from "../../src/transports/http/RequestHandler.js"
import { uuid } from "../support/ids.js"
import { InMemoryServices } from "../../src/services/InMemoryServices.js"

const readMaxBytes = 64 * 1024
const graphqlResponseJson = "application/graphql-response+json"

interface GraphqlError {
  readonly message: string
  readonly path?: ReadonlyArray<string | number>
  readonly locations?: ReadonlyArray<{ line: number; column: number }>
  readonly extensions?: { readonly code?: string }
}
interface Reply {
  readonly status: number
  readonly contentType: string | null
  readonly allow?: string | null
  readonly text: string
  readonly body: { readonly data?: any; readonly errors?: ReadonlyArray<GraphqlError> }
}

const reply = async (response: Response): Promise<Reply> => {
  const text = await response.text()
  return {
    status: response.status,
    contentType: response.headers.get("content-type"),
    allow: response.headers.get("allow"),
    text,
    body: text ? JSON.parse(text) : {}
  }
}

interface Operation {
  readonly query: string
  readonly variables?: Record<string, unknown>
  readonly operationName?: string
}

const post = (url: string, operation: Operation, accept = `${graphqlResponseJson}, application/json`) =>
  Effect.promise(() =>
    fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept },
      body: JSON.stringify(operation)
    }).then(reply)
  )

const get = (url: string, params: Record<string, string>, accept = graphqlResponseJson) =>
  Effect.promise(() => fetch(`${url}?${new URLSearchParams(params)}`, { headers: { accept } }).then(reply))

/** The one error of a reply, checked to carry no stack trace or source location of ours. */
const onlyError = (r: Reply): GraphqlError => {
  expect(r.text).not.toMatch(/stack|\n\s+at |\.ts:\d|node_modules/)
  expect(r.body.errors).toHaveLength(1)
  return r.body.errors![0]!
}

/** An HTTP/1.1 server on a free loopback port, closed with the scope. */
const serve = (handler: RequestHandler) =>
  Effect.acquireRelease(
    Effect.async<http.Server>((resume) => {
      const server = http.createServer(handler)
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) =>
      Effect.async<void>((resume) => {
        server.close(() => resume(Effect.void))
        server.closeAllConnections()
      })
  ).pipe(Effect.map((server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`))

/** A cleartext HTTP/2 server (prior knowledge) on a free loopback port, closed with the scope. */
const serveH2 = (handler: RequestHandler) =>
  Effect.acquireRelease(
    Effect.async<http2.Http2Server>((resume) => {
      const server = http2.createServer(handler)
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
  ).pipe(Effect.map((server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`))

/** One HTTP/2 exchange: the status, the content type and the body. */
const h2Exchange = (origin: string, headers: http2.OutgoingHttpHeaders, body?: string) =>
  Effect.promise(() =>
    new Promise<Reply>((resolve, reject) => {
      const session = http2.connect(origin)
      session.on("error", reject)
      const stream = session.request(headers)
      let status = 0
      let contentType: string | null = null
      let text = ""
      stream.on("response", (h) => {
        status = Number(h[":status"])
        contentType = (h["content-type"] as string | undefined) ?? null
      })
      stream.setEncoding("utf8")
      stream.on("data", (chunk: string) => (text += chunk))
      stream.on("end", () => {
        session.close()
        resolve({ status, contentType, text, body: text ? JSON.parse(text) : {} })
      })
      stream.on("error", reject)
      stream.end(body)
    })
  )

/** Where each port's /graphql answers in this suite. */
class Endpoints extends Context.Tag("Endpoints")<Endpoints, {
  readonly org: string
  readonly profile: string
  readonly license: string
  readonly workflow: string
}>() {}

const EndpointsLive = Layer.scoped(
  Endpoints,
  Effect.gen(function*() {
    const runtime = yield* Effect.runtime<OrgHandlers | ProfileHandlers | LicenseHandlers | WorkflowHandlers>()
    return {
      org: yield* serve(graphqlHandler(orgGraphql, runtime, { readMaxBytes })),
      profile: yield* serve(graphqlHandler(profileGraphql, runtime, { readMaxBytes })),
      license: yield* serve(graphqlHandler(licenseGraphql, runtime, { readMaxBytes })),
      workflow: yield* serve(graphqlHandler(workflowGraphql, runtime, { readMaxBytes }))
    }
  })
)

const Services = Layer.mergeAll(OrgOperationsLive, ProfileOperationsLive, LicenseOperationsLive, WorkflowOperationsLive).pipe(
  Layer.provideMerge(InMemoryServices)
)

const createOrg = `mutation CreateOrg($input: CreateOrgInput!) { createOrg(input: $input) { org { id name } } }`

const createWorkflow = `mutation Onboard($input: CreateOnboardingWorkflowInput!) {
  createOnboardingWorkflow(input: $input) { workflowId orgId profileId licenseId }
}`

const workflowInput = (overrides: Record<string, unknown> = {}) => ({
  license: { start: "2023-11-16T13:00:00+01:00", end: "2024-11-16T12:00:00Z" },
  org: { name: "Initech" },
  profile: { fullName: "Peter Gibbons" },
  ...overrides
})

const uuidText = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

describe("GraphQL, on the in-memory services", () => {
  layer(Layer.provideMerge(EndpointsLive, Services), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("an org is created with variables and read back with field subsets and aliases", () =>
      Effect.gen(function*() {
        const { org: url } = yield* Endpoints
        const id = uuid()
        const created = yield* post(url, { query: createOrg, variables: { input: { id: id.toUpperCase(), name: "Acme" } } })
        expect(created.status).toBe(200)
        expect(created.contentType).toBe(`${graphqlResponseJson}; charset=utf-8`)
        expect(created.body).toEqual({ data: { createOrg: { org: { id, name: "Acme" } } } })

        const subset = yield* post(url, { query: `{ org(id: "${id}") { org { name } } }` })
        expect(subset.body).toEqual({ data: { org: { org: { name: "Acme" } } } })

        const aliased = yield* post(url, {
          query: `query Both($id: ID!) { a: org(id: $id) { org { id } } b: org(id: $id) { theOrg: org { name } } }`,
          variables: { id }
        })
        expect(aliased.body).toEqual({ data: { a: { org: { id } }, b: { theOrg: { name: "Acme" } } } })
      }))

    it.effect("creating an org again answers the same, and other content is ALREADY_EXISTS at createOrg", () =>
      Effect.gen(function*() {
        const { org: url } = yield* Endpoints
        const id = uuid()
        const first = yield* post(url, { query: createOrg, variables: { input: { id, name: "Acme" } } })
        const again = yield* post(url, { query: createOrg, variables: { input: { id, name: "Acme" } } })
        expect(again.body).toEqual(first.body)

        const other = yield* post(url, { query: createOrg, variables: { input: { id, name: "Globex" } } })
        expect(other.status).toBe(200) // a field error: data is present (null), GraphQL-over-HTTP answers 200
        expect(other.body.data).toBeNull()
        expect(onlyError(other)).toEqual({
          message: `org ${id} already exists with different content`,
          locations: [{ line: 1, column: createOrg.indexOf("createOrg(") + 1 }],
          path: ["createOrg"],
          extensions: { code: "ALREADY_EXISTS", resourceInfo: { resourceType: "org", resourceName: id } }
        })
        expect((yield* (yield* Orgs).get(OrgId.make(id))).name).toBe("Acme")
      }))

    it.effect("an unknown org is NOT_FOUND at its (aliased) path and a malformed id is INVALID_ARGUMENT", () =>
      Effect.gen(function*() {
        const { org: url } = yield* Endpoints
        const id = uuid()
        const missing = yield* post(url, { query: `{ missing: org(id: "${id}") { org { id } } }` })
        expect(missing.status).toBe(200)
        expect(missing.body.data).toEqual({ missing: null })
        expect(onlyError(missing)).toMatchObject({
          message: `org ${id} not found`,
          path: ["missing"],
          extensions: { code: "NOT_FOUND" }
        })

        const malformed = yield* post(url, { query: `{ org(id: "no-such-org") { org { id } } }` })
        expect(malformed.body.data).toEqual({ org: null })
        expect(onlyError(malformed)).toMatchObject({
          message: "id: must be a UUID (8-4-4-4-12 hex digits)",
          path: ["org"],
          extensions: { code: "INVALID_ARGUMENT" }
        })

        const blank = yield* post(url, { query: createOrg, variables: { input: { id: uuid(), name: "  " } } })
        expect(onlyError(blank)).toMatchObject({
          message: "name: must not be blank",
          path: ["createOrg"],
          extensions: { code: "INVALID_ARGUMENT" }
        })
      }))

    it.effect("a profile is created with an inline input and read back", () =>
      Effect.gen(function*() {
        const { profile: url } = yield* Endpoints
        const id = uuid()
        const orgId = uuid()
        const created = yield* post(url, {
          query: `mutation { createProfile(input: { id: "${id}", fullName: "Ada Lovelace", orgId: "${orgId}" }) {
            profile { id fullName orgId }
          } }`
        })
        expect(created.body).toEqual({ data: { createProfile: { profile: { id, fullName: "Ada Lovelace", orgId } } } })

        const read = yield* post(url, {
          query: `query Read($id: ID!) { profile(id: $id) { profile { fullName orgId } } }`,
          variables: { id }
        })
        expect(read.body).toEqual({ data: { profile: { profile: { fullName: "Ada Lovelace", orgId } } } })

        const missing = yield* post(url, { query: `{ profile(id: "${uuid()}") { profile { id } } }` })
        expect(onlyError(missing)).toMatchObject({ path: ["profile"], extensions: { code: "NOT_FOUND" } })
      }))

    it.effect("a profile with a blank name and a malformed org id names both fields", () =>
      Effect.gen(function*() {
        const { profile: url } = yield* Endpoints
        const r = yield* post(url, {
          query: `mutation Create($input: CreateProfileInput!) { createProfile(input: $input) { profile { id } } }`,
          variables: { input: { id: uuid(), fullName: "", orgId: "acme" } }
        })
        expect(r.body.data).toBeNull()
        expect(onlyError(r)).toMatchObject({
          message: "fullName: must not be blank; orgId: must be a UUID (8-4-4-4-12 hex digits)",
          path: ["createProfile"],
          extensions: { code: "INVALID_ARGUMENT" }
        })
      }))

    it.effect("a license is created with any offset, answered in UTC, and read back through an alias", () =>
      Effect.gen(function*() {
        const { license: url } = yield* Endpoints
        const id = uuid()
        const userId = uuid()
        const created = yield* post(url, {
          query: `mutation Create($input: CreateLicenseInput!) {
            createLicense(input: $input) { license { id start end userId } }
          }`,
          variables: { input: { id, userId, start: "2023-11-16T13:00:00+01:00", end: "2024-11-16T12:00:00.250Z" } }
        })
        expect(created.body).toEqual({
          data: {
            createLicense: { license: { id, start: "2023-11-16T12:00:00Z", end: "2024-11-16T12:00:00.25Z", userId } }
          }
        })

        const read = yield* post(url, { query: `{ a: license(id: "${id}") { license { id } } b: license(id: "${id}") { license { end } } }` })
        expect(read.body).toEqual({ data: { a: { license: { id } }, b: { license: { end: "2024-11-16T12:00:00.25Z" } } } })

        const missing = yield* post(url, { query: `{ license(id: "${uuid()}") { license { id } } }` })
        expect(onlyError(missing)).toMatchObject({ path: ["license"], extensions: { code: "NOT_FOUND" } })
      }))

    it.effect("a license that does not end after it starts is INVALID_ARGUMENT naming end", () =>
      Effect.gen(function*() {
        const { license: url } = yield* Endpoints
        const r = yield* post(url, {
          query: `mutation { createLicense(input: {
            id: "${uuid()}", userId: "${uuid()}", start: "2024-01-01T00:00:00Z", end: "2024-01-01T00:00:00Z"
          }) { license { id } } }`
        })
        expect(onlyError(r)).toMatchObject({
          message: "end: must be after start",
          path: ["createLicense"],
          extensions: { code: "INVALID_ARGUMENT" }
        })
      }))

    it.effect("a workflow given inline and then as $input answers with one run, readable as onboardingWorkflow", () =>
      Effect.gen(function*() {
        const { workflow: url } = yield* Endpoints
        const workflowId = uuid()
        const inline = yield* post(url, {
          query: `mutation { createOnboardingWorkflow(input: {
            workflowOptions: { workflowId: "${workflowId}" }
            license: { start: "2023-11-16T13:00:00+01:00", end: "2024-11-16T12:00:00Z" }
            org: { name: "Initech" }
            profile: { fullName: "Peter Gibbons" }
          }) { workflowId orgId profileId licenseId } }`
        })
        expect(inline.status).toBe(200)
        const result = inline.body.data.createOnboardingWorkflow
        expect(result.workflowId).toBe(workflowId)
        for (const id of [result.orgId, result.profileId, result.licenseId]) expect(id).toMatch(uuidText)

        const replayed = yield* post(url, {
          query: createWorkflow,
          variables: { input: workflowInput({ workflowOptions: { workflowId } }) }
        })
        expect(replayed.body).toEqual({ data: { createOnboardingWorkflow: result } })

        const run = yield* post(url, {
          query: `query Run($id: ID!) {
            onboardingWorkflow(id: $id) { workflowId orgId profileId licenseId status createdAt }
          }`,
          variables: { id: workflowId }
        })
        expect(run.body.data.onboardingWorkflow).toMatchObject({ ...result, status: "completed" })
        expect(run.body.data.onboardingWorkflow.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/)

        const license = yield* (yield* Licenses).get(result.licenseId)
        expect(license).toMatchObject({ userId: result.profileId, start: "2023-11-16T12:00:00Z" })
        expect((yield* (yield* Profiles).get(result.profileId)).orgId).toBe(result.orgId)
        expect((yield* (yield* Orgs).get(result.orgId)).name).toBe("Initech")
      }))

    it.effect("an empty, null or absent workflowId lets the service choose one", () =>
      Effect.gen(function*() {
        const { workflow: url } = yield* Endpoints
        const answers = yield* Effect.forEach(
          [{ workflowOptions: { workflowId: "" } }, { workflowOptions: { workflowId: null } }, { workflowOptions: null }, {}],
          (options) => post(url, { query: createWorkflow, variables: { input: workflowInput(options) } })
        )
        const ids = answers.map((a) => a.body.data.createOnboardingWorkflow.workflowId)
        for (const id of ids) expect(id).toMatch(uuidText)
        expect(new Set(ids).size).toBe(4)
      }))

    it.effect("workflow refusals: field paths, a reused workflow id, an unknown run", () =>
      Effect.gen(function*() {
        const { workflow: url } = yield* Endpoints
        const backwards = yield* post(url, {
          query: createWorkflow,
          variables: {
            input: workflowInput({
              license: { start: "2024-01-02T00:00:00Z", end: "2024-01-01T00:00:00Z" },
              workflowOptions: { workflowId: "nope" }
            })
          }
        })
        expect(backwards.body.data).toBeNull()
        expect(onlyError(backwards)).toMatchObject({
          message:
            "workflowOptions.workflowId: must be a UUID (8-4-4-4-12 hex digits); license.end: must be after license.start",
          path: ["createOnboardingWorkflow"],
          extensions: { code: "INVALID_ARGUMENT" }
        })

        const workflowId = uuid()
        yield* post(url, { query: createWorkflow, variables: { input: workflowInput({ workflowOptions: { workflowId } }) } })
        const reused = yield* post(url, {
          query: createWorkflow,
          variables: { input: workflowInput({ workflowOptions: { workflowId }, org: { name: "Someone else" } }) }
        })
        expect(onlyError(reused)).toMatchObject({
          message: `workflow ${workflowId} already exists with different content`,
          path: ["createOnboardingWorkflow"],
          extensions: { code: "ALREADY_EXISTS" }
        })

        const unknown = uuid()
        const missing = yield* post(url, { query: `{ onboardingWorkflow(id: "${unknown}") { status } }` })
        expect(missing.body.data).toEqual({ onboardingWorkflow: null })
        expect(onlyError(missing)).toMatchObject({
          message: `workflow ${unknown} not found`,
          path: ["onboardingWorkflow"],
          extensions: { code: "NOT_FOUND" }
        })
      }))

    it.effect("operationName picks one of several operations in the document", () =>
      Effect.gen(function*() {
        const { org: url } = yield* Endpoints
        const id = uuid()
        const document = `
          query Read($id: ID!) { org(id: $id) { org { name } } }
          mutation Create($id: ID!) { createOrg(input: { id: $id, name: "Chosen" }) { org { id } } }
        `
        const created = yield* post(url, { query: document, variables: { id }, operationName: "Create" })
        expect(created.body).toEqual({ data: { createOrg: { org: { id } } } })
        const read = yield* post(url, { query: document, variables: { id }, operationName: "Read" })
        expect(read.body).toEqual({ data: { org: { org: { name: "Chosen" } } } })

        const ambiguous = yield* post(url, { query: document, variables: { id } })
        expect(ambiguous.status).toBe(400)
        expect(onlyError(ambiguous).message).toBe("Unable to detect operation AST")
      }))

    it.effect("GET runs a query, with variables and operationName, and refuses a mutation with 405", () =>
      Effect.gen(function*() {
        const { org: url } = yield* Endpoints
        const id = uuid()
        yield* post(url, { query: createOrg, variables: { input: { id, name: "Read by GET" } } })
        const read = yield* get(url, {
          query: `query Other { __typename } query Read($id: ID!) { org(id: $id) { org { name } } }`,
          variables: JSON.stringify({ id }),
          operationName: "Read"
        })
        expect(read.status).toBe(200)
        expect(read.body).toEqual({ data: { org: { org: { name: "Read by GET" } } } })

        const refusedId = uuid()
        const mutation = yield* get(url, { query: `mutation { createOrg(input: { id: "${refusedId}", name: "x" }) { org { id } } }` })
        expect(mutation.status).toBe(405)
        expect(mutation.allow).toBe("POST")
        expect(onlyError(mutation).message).toBe("Cannot perform mutations over GET")
        expect(yield* Effect.flip((yield* Orgs).get(OrgId.make(refusedId)))).toBeInstanceOf(NotFound)
      }))

    it.effect("application/graphql-response+json: request errors are 400 with that media type", () =>
      Effect.gen(function*() {
        const { org: url } = yield* Endpoints
        const syntax = yield* post(url, { query: "{ org(id: " }, graphqlResponseJson)
        expect(syntax.status).toBe(400)
        expect(syntax.contentType).toBe(`${graphqlResponseJson}; charset=utf-8`)
        expect(syntax.body.data).toBeUndefined()
        expect(onlyError(syntax).message).toMatch(/^Syntax Error/)

        const unknownFieldQuery = `{ org(id: "${uuid()}") { org { nickname } } }`
        const unknownField = yield* post(url, { query: unknownFieldQuery }, graphqlResponseJson)
        expect(unknownField.status).toBe(400)
        expect(unknownField.contentType).toBe(`${graphqlResponseJson}; charset=utf-8`)
        expect(unknownField.body.data).toBeUndefined()
        expect(onlyError(unknownField)).toEqual({
          message: `Cannot query field "nickname" on type "Org". Did you mean "name"?`,
          locations: [{ line: 1, column: unknownFieldQuery.indexOf("nickname") + 1 }]
        })

        const badVariable = yield* post(url, {
          query: `query Read($id: ID!) { org(id: $id) { org { id } } }`,
          variables: { id: { not: "an id" } }
        }, graphqlResponseJson)
        expect(badVariable.status).toBe(400)
        expect(badVariable.contentType).toBe(`${graphqlResponseJson}; charset=utf-8`)
        expect(badVariable.body.data).toBeUndefined()
        expect(onlyError(badVariable).message).toMatch(/^Variable "\$id" got invalid value/)

        const missingInputField = yield* post(url, { query: createOrg, variables: { input: { id: uuid() } } }, graphqlResponseJson)
        expect(missingInputField.status).toBe(400)
        expect(onlyError(missingInputField).message).toMatch(/Field "name" of required type "String!" was not provided/)
      }))

    it.effect("application/json: request errors answer 200 (the spec's legacy rules), successes alike", () =>
      Effect.gen(function*() {
        const { org: url } = yield* Endpoints
        const json = "application/json"
        const syntax = yield* post(url, { query: "{ org(id: " }, json)
        expect(syntax.status).toBe(200)
        expect(syntax.contentType).toBe("application/json; charset=utf-8")
        expect(onlyError(syntax).message).toMatch(/^Syntax Error/)

        const unknownField = yield* post(url, { query: `{ org(id: "${uuid()}") { org { nickname } } }` }, json)
        expect(unknownField.status).toBe(200)
        expect(onlyError(unknownField).message).toBe(`Cannot query field "nickname" on type "Org". Did you mean "name"?`)

        const badVariable = yield* post(url, {
          query: `query Read($id: ID!) { org(id: $id) { org { id } } }`,
          variables: {}
        }, json)
        expect(badVariable.status).toBe(200)
        expect(onlyError(badVariable).message).toBe(`Variable "$id" of required type "ID!" was not provided.`)

        const id = uuid()
        const created = yield* post(url, { query: createOrg, variables: { input: { id, name: "Acme" } } }, json)
        expect(created.status).toBe(200)
        expect(created.contentType).toBe("application/json; charset=utf-8")
        expect(created.body).toEqual({ data: { createOrg: { org: { id, name: "Acme" } } } })

        // No Accept header at all is */*: application/json.
        const anyType = yield* Effect.promise(() =>
          fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "{\"query\":\"{ __typename }\"}" })
            .then(reply)
        )
        expect(anyType.contentType).toBe("application/json; charset=utf-8")
        expect(anyType.body).toEqual({ data: { __typename: "Query" } })
      }))

    it.effect("malformed HTTP requests: unparsable JSON 400, other content types 415, unacceptable Accept 406", () =>
      Effect.gen(function*() {
        const { org: url } = yield* Endpoints
        const send = (init: RequestInit) => Effect.promise(() => fetch(url, init).then(reply))
        const unparsable = yield* send({ method: "POST", headers: { "content-type": "application/json" }, body: "{" })
        expect(unparsable.status).toBe(400)
        expect(onlyError(unparsable).message).toBe("Unparsable JSON body")

        const missingQuery = yield* send({ method: "POST", headers: { "content-type": "application/json" }, body: "{}" })
        expect(missingQuery.status).toBe(400)
        expect(onlyError(missingQuery).message).toBe("Missing query")

        const text = yield* send({ method: "POST", headers: { "content-type": "text/plain" }, body: "{ __typename }" })
        expect(text.status).toBe(415)

        const html = yield* send({
          method: "POST",
          headers: { "content-type": "application/json", accept: "text/html" },
          body: "{\"query\":\"{ __typename }\"}"
        })
        expect(html.status).toBe(406)

        const put = yield* send({ method: "PUT", headers: { "content-type": "application/json" }, body: "{}" })
        expect(put.status).toBe(405)
      }))

    it.effect("a body over the limit is RESOURCE_EXHAUSTED (413), whether its length is declared or streamed", () =>
      Effect.gen(function*() {
        const { org: url } = yield* Endpoints
        const big = JSON.stringify({ query: `{ __typename }`, variables: { padding: "x".repeat(readMaxBytes) } })
        const declared = yield* Effect.promise(() =>
          fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: big }).then(reply)
        )
        expect(declared.status).toBe(413)
        expect(onlyError(declared)).toEqual({
          message: `request body is larger than MAX_BODY_BYTES (${readMaxBytes} bytes)`,
          extensions: { code: "RESOURCE_EXHAUSTED" }
        })

        const streamed = yield* Effect.promise(() =>
          fetch(url, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: new Blob([big]).stream(),
            duplex: "half"
          } as RequestInit).then(reply)
        )
        expect(streamed.status).toBe(413)
        expect(onlyError(streamed).extensions?.code).toBe("RESOURCE_EXHAUSTED")

        const justUnder = JSON.stringify({ query: `{ __typename }`, variables: { padding: "x".repeat(readMaxBytes - 100) } })
        const fits = yield* Effect.promise(() =>
          fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: justUnder }).then(reply)
        )
        expect(fits.body).toEqual({ data: { __typename: "Query" } })
      }))

    it.effect("the same handler answers over cleartext HTTP/2", () =>
      Effect.gen(function*() {
        const origin = yield* serveH2(graphqlHandler(orgGraphql, yield* Effect.runtime<OrgHandlers>()))
        const id = uuid()
        const created = yield* h2Exchange(origin, {
          ":method": "POST",
          ":path": "/graphql",
          "content-type": "application/json",
          accept: graphqlResponseJson
        }, JSON.stringify({ query: createOrg, variables: { input: { id, name: "Over h2" } } }))
        expect(created.status).toBe(200)
        expect(created.contentType).toBe(`${graphqlResponseJson}; charset=utf-8`)
        expect(created.body).toEqual({ data: { createOrg: { org: { id, name: "Over h2" } } } })

        const read = yield* h2Exchange(origin, {
          ":method": "GET",
          ":path": `/graphql?${new URLSearchParams({ query: `{ org(id: "${id}") { org { name } } }` })}`
        })
        expect(read.body).toEqual({ data: { org: { org: { name: "Over h2" } } } })

        const syntax = yield* h2Exchange(origin, {
          ":method": "POST",
          ":path": "/graphql",
          "content-type": "application/json",
          accept: graphqlResponseJson
        }, JSON.stringify({ query: "{" }))
        expect(syntax.status).toBe(400)
      }).pipe(Effect.scoped))

    it.effect("a bug is INTERNAL with no details on the wire and its full cause in the log", () =>
      Effect.gen(function*() {
        const logged: Array<string> = []
        const logger = Logger.make(({ cause, message }) => logged.push(`${String(message)} ${cause}`))
        const orgs = Orgs.make({
          create: () => Effect.fail(new Unavailable({ message: "the database is unavailable" })),
          get: () => Effect.die(new Error("relation \"orgs\" does not exist")),
          list: () => Effect.die("not used")
        })
        const runtime = yield* Effect.runtime<OrgHandlers>().pipe(
          Effect.provide(OrgOperationsLive),
          Effect.provideService(Orgs, orgs),
          Effect.provide(Logger.replace(Logger.defaultLogger, logger))
        )
        const url = yield* serve(graphqlHandler(orgGraphql, runtime))

        const broken = yield* post(url, { query: `{ org(id: "${uuid()}") { org { id } } }` })
        expect(broken.status).toBe(200)
        expect(broken.body.data).toEqual({ org: null })
        expect(onlyError(broken)).toEqual({
          message: "internal error",
          locations: [{ line: 1, column: 3 }],
          path: ["org"],
          extensions: { code: "INTERNAL" }
        })
        expect(broken.text).not.toContain("relation")
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
        expect(logged.some((line) => line.includes("GraphQL Query.org failed") && line.includes("relation \"orgs\""))).toBe(
          true
        )

        const unavailable = yield* post(url, { query: createOrg, variables: { input: { id: uuid(), name: "Acme" } } })
        expect(onlyError(unavailable)).toMatchObject({
          message: "the database is unavailable",
          path: ["createOrg"],
          extensions: { code: "UNAVAILABLE" }
        })
      }).pipe(Effect.scoped))

    it.effect("a client that goes away interrupts its call", () =>
      Effect.gen(function*() {
        const started = yield* Deferred.make<void>()
        const interrupted = yield* Deferred.make<void>()
        const orgs = Orgs.make({
          create: () => Effect.die("not used"),
          list: () => Effect.die("not used"),
          get: () =>
            Deferred.succeed(started, undefined).pipe(
              Effect.zipRight(Effect.never),
              Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))
            )
        })
        const runtime = yield* Effect.runtime<OrgHandlers>().pipe(
          Effect.provide(OrgOperationsLive),
          Effect.provideService(Orgs, orgs)
        )
        const url = yield* serve(graphqlHandler(orgGraphql, runtime))

        const client = new AbortController()
        const call = fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: `{ org(id: "${uuid()}") { org { id } } }` }),
          signal: client.signal
        }).catch(() => "aborted")
        yield* Deferred.await(started)
        client.abort()
        expect(yield* Effect.promise(() => call)).toBe("aborted")
        yield* Deferred.await(interrupted).pipe(Effect.timeout("5 seconds"))
      }).pipe(Effect.scoped))
  })
})
