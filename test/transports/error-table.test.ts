import { Code } from "@connectrpc/connect"
import { codeToString } from "@connectrpc/connect/protocol-connect"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Logger, Option, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import { Unavailable } from "../../src/domain/Errors.js"
import { errorBody, errorTable, type FailureKind } from "../../src/transports/ErrorTable.js"
import { Services } from "../support/Services.js"
import { envelope, grpcRaw, httpCall, protoBytes, rpcRequest } from "../reliability/support/wire.js"
import { CreateOrgRequestSchema, GetOrgRequestSchema } from "../../src/gen/org/v1beta1/org_pb.js"
import { failingOrgs, inProcessServers } from "../support/InProcessServers.js"

/**
 * Failure kinds x styles, every answer checked against the one table (ErrorTable.ts): its codes
 * and its error body per style. Each row provokes one kind on a real port; what is expected is
 * always read from the table, never written here.
 */

type Style = "connect" | "grpc" | "rest" | "graphql" | "rpc"

/** Connect's HTTP status for a code is fixed by its protocol (connectrpc.com/docs/protocol). */
const connectStatus: Partial<Record<Code, number>> = {
  [Code.InvalidArgument]: 400,
  [Code.NotFound]: 404,
  [Code.AlreadyExists]: 409,
  [Code.ResourceExhausted]: 429,
  [Code.Unavailable]: 503,
  [Code.Unauthenticated]: 401,
  [Code.Internal]: 500,
  [Code.Unimplemented]: 501
}

const getOrg = "org.v1beta1.OrgService/GetOrg"
const createOrg = "org.v1beta1.OrgService/CreateOrg"
const json = { "content-type": "application/json" }

/** One call of `style` on the org port that reads (`id`) or creates (`id`, `name`). */
const call = (style: Style, url: string, op: { readonly id: string; readonly name?: string; readonly body?: string }) => {
  const creating = op.name !== undefined
  switch (style) {
    case "connect":
      return httpCall(`${url}/${creating ? createOrg : getOrg}`, {
        headers: json,
        body: op.body ?? JSON.stringify({ id: op.id, ...(creating ? { name: op.name } : {}) })
      })
    case "grpc":
      return grpcRaw(
        url,
        creating ? createOrg : getOrg,
        envelope(creating ? protoBytes(CreateOrgRequestSchema, { id: op.id, name: op.name! }) : protoBytes(GetOrgRequestSchema, { id: op.id }))
      )
    case "rest":
      return creating
        ? httpCall(`${url}/orgs/${op.id}`, { method: "PUT", headers: json, body: op.body ?? JSON.stringify({ name: op.name }) })
        : httpCall(`${url}/orgs/${op.id}`)
    case "graphql":
      return httpCall(`${url}/graphql`, {
        headers: json,
        body: op.body ?? JSON.stringify(
          creating
            ? { query: "mutation($i: CreateOrgInput!) { createOrg(input: $i) { org { id } } }", variables: { i: { id: op.id, name: op.name } } }
            : { query: `{ org(id: "${op.id}") { org { id } } }` }
        )
      })
    case "rpc":
      return httpCall(`${url}/rpc`, {
        headers: json,
        body: op.body ?? rpcRequest(creating ? "CreateOrg" : "GetOrg", creating ? { id: op.id, name: op.name } : { id: op.id })
      })
  }
}

/** Checks one answer of `style` against the table's entry for `kind`. */
const expectKind = (style: Style, kind: FailureKind, answer: any, refusedBeforeItsStyle = false) => {
  const entry = errorTable[kind]
  const where = { style, kind }
  switch (style) {
    case "connect":
      expect({ ...where, status: answer.status, code: answer.json?.code }).toEqual({
        ...where,
        status: connectStatus[entry.connect],
        code: codeToString(entry.connect)
      })
      return
    case "grpc":
      expect({ ...where, code: answer.code }).toEqual({ ...where, code: entry.grpc })
      return
    case "rest": {
      const { details, ...body } = answer.json ?? {}
      const { details: _none, ...expected } = errorBody.rest(kind, answer.json?.message)
      expect({ ...where, status: answer.status, body }).toEqual({ ...where, status: entry.http, body: expected })
      // A failure about one record names it in its details (google.rpc.ResourceInfo), a broken
      // rule of one field names the field (google.rpc.BadRequest); any other has none.
      const message = String(answer.json?.message)
      const record = /^(\w+) (\S+) (?:not found|already exists with different content)$/.exec(message)
      const field = kind === "InvalidArgument" ? /^([\w.]+): (.+)$/.exec(message) : null
      expect({ ...where, details }).toEqual({
        ...where,
        details: record !== null
          ? [{ "@type": "type.googleapis.com/google.rpc.ResourceInfo", resourceType: record[1], resourceName: record[2] }]
          : field !== null
          ? [{ "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: [{ field: field[1], description: field[2] }] }]
          : []
      })
      return
    }
    case "graphql": {
      // A refusal before GraphQL runs is a request error with the table's status; a field's
      // failure is a 200 with the error in errors[].
      expect({ ...where, status: answer.status, code: answer.json?.errors?.[0]?.extensions?.code }).toEqual({
        ...where,
        status: refusedBeforeItsStyle ? entry.http : 200,
        code: entry.graphql
      })
      return
    }
    case "rpc": {
      if (refusedBeforeItsStyle) {
        expect({ ...where, status: answer.status, body: answer.json }).toEqual({
          ...where,
          status: entry.http,
          body: errorBody.rest(kind, answer.json?.message)
        })
      } else {
        // A typed failure of the operation: its tag is the kind. A bug is @effect/rpc's Defect
        // frame, which the typed client raises as a defect, carrying "internal error" only.
        const frame = answer.json?.[0]
        const failure = frame?.exit?.cause
        expect({ ...where, tag: frame?._tag === "Defect" ? frame.defect : failure?.error?._tag }).toEqual({
          ...where,
          tag: kind === "Internal" ? { name: "Error", message: "internal error" } : kind
        })
      }
    }
  }
}

const styles: ReadonlyArray<Style> = ["connect", "grpc", "rest", "graphql", "rpc"]
const answerOf = (style: Style, url: string, op: Parameters<typeof call>[2]) =>
  Effect.promise(() => call(style, url, op) as Promise<unknown>)

describe("the error table, walked: every failure kind in every style", () => {
  const maxBody = 2_048
  layer(inProcessServers({ readMaxBytes: maxBody }), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("InvalidArgument, NotFound and AlreadyExists from the operations", () =>
      Effect.gen(function*() {
        const { org } = yield* Services
        for (const style of styles) {
          expectKind(style, "InvalidArgument", yield* answerOf(style, org, { id: "not-a-uuid" }))
          expectKind(style, "NotFound", yield* answerOf(style, org, { id: randomUUID() }))
          const id = randomUUID()
          yield* answerOf(style, org, { id, name: "First" })
          expectKind(style, "AlreadyExists", yield* answerOf(style, org, { id, name: "Second" }))
        }
      }))

    it.effect("ResourceExhausted for a body over MAX_BODY_BYTES, before any handler", () =>
      Effect.gen(function*() {
        const { org } = yield* Services
        const name = "x".repeat(maxBody * 2)
        for (const style of ["connect", "grpc", "rest", "graphql"] as const) {
          expectKind(style, "ResourceExhausted", yield* answerOf(style, org, { id: randomUUID(), name }), true)
        }
        const rpc = yield* answerOf("rpc", org, { id: randomUUID(), name })
        expectKind("rpc", "ResourceExhausted", rpc, true)
      }))

    it.effect("MethodNotAllowed and UnsupportedMediaType where a style has them", () =>
      Effect.gen(function*() {
        const { org } = yield* Services
        const id = randomUUID()
        const rest405 = yield* Effect.promise(() => httpCall(`${org}/orgs/${id}`, { method: "DELETE" }))
        expectKind("rest", "MethodNotAllowed", rest405)
        expect(rest405.headers.get("allow")).toBe("GET, POST, PUT")
        expectKind("rpc", "MethodNotAllowed", yield* Effect.promise(() => httpCall(`${org}/rpc`)), true)
        const text = { "content-type": "text/plain" }
        expectKind("rest", "UnsupportedMediaType", yield* Effect.promise(() =>
          httpCall(`${org}/orgs/${id}`, { method: "PUT", headers: text, body: "{}" })))
        expectKind("graphql", "UnsupportedMediaType", yield* Effect.promise(() =>
          httpCall(`${org}/graphql`, { headers: text, body: JSON.stringify({ query: "{ __typename }" }) })), true)
        expectKind("rpc", "UnsupportedMediaType", yield* Effect.promise(() =>
          httpCall(`${org}/rpc`, { headers: { "content-type": "application/json; charset=latin1" }, body: "[]" })), true)
      }))
  })

  layer(inProcessServers({ apiToken: Option.some(Redacted.make("walk-token")) }), { timeout: 120_000, excludeTestServices: true })(
    (it) => {
      it.effect("Unauthenticated without the token, before any body is read", () =>
        Effect.gen(function*() {
          const { org } = yield* Services
          for (const style of styles) {
            expectKind(style, "Unauthenticated", yield* answerOf(style, org, { id: randomUUID() }), true)
          }
        }))
    }
  )

  layer(inProcessServers({}, failingOrgs(Effect.fail(new Unavailable({ message: "the database is unavailable" })))), {
    timeout: 120_000,
    excludeTestServices: true
  })((it) => {
    it.effect("Unavailable when the database stays unreachable", () =>
      Effect.gen(function*() {
        const { org } = yield* Services
        for (const style of styles) expectKind(style, "Unavailable", yield* answerOf(style, org, { id: randomUUID() }))
      }))
  })

  // The bug's cause is logged (security.test.ts checks that); here the log is not the point.
  const quiet = Layer.provide(Logger.replace(Logger.defaultLogger, Logger.none))
  layer(inProcessServers({}, failingOrgs(Effect.die(new Error("a bug")))).pipe(quiet), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("Internal for a bug, with no detail on the wire", () =>
      Effect.gen(function*() {
        const { org } = yield* Services
        for (const style of styles) {
          const answer = yield* answerOf(style, org, { id: randomUUID() })
          expectKind(style, "Internal", answer)
          expect(JSON.stringify(answer)).not.toContain("a bug")
        }
      }))
  })
})
