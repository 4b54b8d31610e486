import SwaggerParser from "@apidevtools/swagger-parser"
import type { DescMessage } from "@bufbuild/protobuf"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { CreateLicenseRequestSchema } from "../../src/gen/license/v1beta1/license_pb.js"
import { CreateOrgRequestSchema } from "../../src/gen/org/v1beta1/org_pb.js"
import { CreateProfileRequestSchema } from "../../src/gen/profile/v1beta1/profile_pb.js"
import { CreateOnboardingWorkflowRequestSchema } from "../../src/gen/workflow/v1beta1/workflow_pb.js"
import { errorTable, type FailureKind } from "../../src/transports/ErrorTable.js"
import { Services } from "../support/Services.js"
import { inProcessServers } from "../support/InProcessServers.js"

/** Each port's REST paths and methods (contract §5): its document lists these and no others. */
const expected = {
  org: { "/orgs": ["get"], "/orgs/{id}": ["get", "post", "put"] },
  profile: { "/profiles": ["get"], "/profiles/{id}": ["get", "post", "put"] },
  license: { "/licenses": ["get"], "/licenses/{id}": ["get", "post", "put"] },
  workflow: { "/workflow/workflows/onboarding": ["get", "post"], "/workflow/workflows/onboarding/{id}": ["get"] }
} as const

type Operation = {
  readonly responses: Record<string, { readonly content?: Record<string, { readonly schema: unknown }> }>
  readonly security?: ReadonlyArray<Record<string, unknown>>
}

type JsonSchema = {
  readonly $ref?: string
  readonly type?: string
  readonly properties?: Record<string, JsonSchema>
  readonly examples?: ReadonlyArray<unknown>
  readonly minimum?: number
  readonly maximum?: number
  readonly format?: string
  readonly pattern?: string
  readonly enum?: ReadonlyArray<unknown>
}
type BodySchema = JsonSchema & {
  readonly anyOf?: ReadonlyArray<BodySchema>
  readonly required?: ReadonlyArray<string>
  readonly allOf?: ReadonlyArray<{ readonly anyOf: ReadonlyArray<{ readonly required: ReadonlyArray<string> }> }>
  readonly additionalProperties?: boolean
}
type Parameter = { readonly name: string; readonly in: string; readonly schema: JsonSchema; readonly example?: unknown; readonly description?: string }
type Document = {
  readonly paths: Record<string, Record<string, {
    readonly parameters: ReadonlyArray<Parameter>
    readonly requestBody?: { readonly content: Record<string, { readonly schema: JsonSchema }> }
  }>>
  readonly components: { readonly schemas: Record<string, JsonSchema> }
}

/** Each list's query parameters (contract §7), by their JSON names: what the document names, each once. */
const listParameters = {
  org: ["pageSize", "pageToken"],
  profile: ["pageSize", "pageToken", "orgId"],
  license: ["pageSize", "pageToken", "userId"],
  workflow: ["pageSize", "pageToken", "status"]
} as const

/**
 * The body Swagger UI prefills from a schema: an object of its properties' samples, each its
 * first example (else a placeholder of its type, as Swagger UI writes one).
 */
const sampleOf = (schema: JsonSchema, document: Document): unknown => {
  const resolved = schema.$ref === undefined ? schema : document.components.schemas[schema.$ref.replace("#/components/schemas/", "")]!
  if (resolved.examples !== undefined) return resolved.examples[0]
  if (resolved.properties !== undefined) {
    return Object.fromEntries(Object.entries(resolved.properties).map(([name, property]) => [name, sampleOf(property, document)]))
  }
  return resolved.type === "integer" ? 0 : "string"
}

/** Each port's create body, as the request message a JSON body stands for (its fields, both names each). */
const createBodies = {
  org: ["/orgs/{id}", CreateOrgRequestSchema],
  profile: ["/profiles/{id}", CreateProfileRequestSchema],
  license: ["/licenses/{id}", CreateLicenseRequestSchema],
  workflow: ["/workflow/workflows/onboarding", CreateOnboardingWorkflowRequestSchema]
} as const

/** The object a documented schema stands for: itself, or its one member besides null. */
const objectSchema = (schema: BodySchema): BodySchema => schema.anyOf?.find((member) => member.type === "object") ?? schema

/**
 * Where a documented body and its message differ, each difference named by its path: a field's
 * proto or JSON name the document leaves out, a property the message does not have, a field
 * required under one name only, or an object that allows other properties.
 */
const differences = (schema: BodySchema, message: DescMessage, required: ReadonlyArray<string>, path = ""): Array<string> => {
  const object = objectSchema(schema)
  const properties = object.properties ?? {}
  const names = message.fields.flatMap((field) => [field.name, field.jsonName])
  const found: Array<string> = []
  if (object.additionalProperties !== false) found.push(`${path}: allows other properties`)
  for (const name of names) if (!(name in properties)) found.push(`${path}${name}: not documented`)
  for (const name of Object.keys(properties)) if (!names.includes(name)) found.push(`${path}${name}: not a field of ${message.typeName}`)
  for (const json of required) {
    const field = message.fields.find((each) => each.jsonName === json)!
    const either = [...new Set([field.jsonName, field.name])].sort()
    const documented = field.jsonName === field.name
      ? (object.required ?? []).includes(json)
      : (object.allOf ?? []).some((rule) => JSON.stringify(rule.anyOf.map((each) => each.required[0]).sort()) === JSON.stringify(either))
    if (!documented) found.push(`${path}${json}: not required under ${either.join(" or ")}`)
  }
  for (const field of message.fields) {
    if (field.fieldKind !== "message" || field.message.typeName.startsWith("google.protobuf.")) continue
    for (const name of new Set([field.name, field.jsonName])) {
      const nested = properties[name] as BodySchema | undefined
      if (nested === undefined) continue
      // A nested message's required fields are what the domain requires: every field but the
      // workflow id and those the proto marks optional.
      const nestedRequired = field.message.fields.filter((each) => !each.proto.proto3Optional)
        .map((each) => each.jsonName).filter((json) => json !== "workflowId")
      found.push(...differences(nested, field.message, nestedRequired, `${path}${name}.`))
    }
  }
  return found
}

describe("GET /openapi.json", () => {
  layer(inProcessServers(), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("every port serves a valid OpenAPI 3.1 document of its own REST operations only", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        for (const port of ["org", "profile", "license", "workflow"] as const) {
          const response = yield* Effect.promise(() => fetch(`${urls[port]}/openapi.json`))
          expect(response.status).toBe(200)
          expect(response.headers.get("content-type")).toContain("application/json")
          expect(response.headers.get("cache-control")).toMatch(/max-age=\d+/)
          const document = (yield* Effect.promise(() => response.json())) as {
            readonly openapi: string
            readonly paths: Record<string, Record<string, unknown>>
          }
          // swagger-parser dereferences in place: it checks a copy.
          yield* Effect.promise(() => SwaggerParser.validate(structuredClone(document) as never))
          expect(document.openapi).toBe("3.1.0")
          const paths = Object.fromEntries(
            Object.entries(document.paths as Record<string, Record<string, unknown>>).map(([path, ops]) => [
              path,
              Object.keys(ops).sort()
            ])
          )
          expect({ port, paths }).toEqual({ port, paths: expected[port] })
        }
      }))

    it.effect("each list's query parameters are documented once, by their JSON names, with their types; the proto names still work", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        for (const port of ["org", "profile", "license", "workflow"] as const) {
          const document = (yield* Effect.promise(() => fetch(`${urls[port]}/openapi.json`).then((r) => r.json()))) as Document
          const [path] = Object.keys(expected[port]).filter((each) => !each.endsWith("{id}"))
          const parameters = document.paths[path!]!["get"]!.parameters
          expect({ port, names: parameters.map((parameter) => parameter.name) }).toEqual({ port, names: listParameters[port] })
          const byName = new Map(parameters.map((parameter) => [parameter.name, parameter]))
          // pageSize: an integer with the bounds the domain enforces (0 or absent means the default).
          expect(byName.get("pageSize")!.schema).toMatchObject({ type: "integer", minimum: 0, maximum: 100 })
          expect(byName.get("pageSize")!.description).toMatch(/rows per page/)
          expect(byName.get("pageToken")!.schema.type).toBe("string")
          for (const filter of ["orgId", "userId"]) {
            if (byName.has(filter)) expect(byName.get(filter)!.schema).toMatchObject({ type: "string", pattern: expect.any(String) })
          }
          if (byName.has("status")) expect(byName.get("status")!.schema).toMatchObject({ type: "string", enum: ["completed"] })
        }
        // The server still takes the proto names the document leaves out (`queryRequest` in RequestBody.ts).
        for (let i = 0; i < 2; i++) {
          yield* Effect.promise(() =>
            fetch(`${urls.org}/orgs/${randomUUID()}`, { method: "PUT", headers: { "content-type": "application/json" }, body: `{"name":"Alias ${i}"}` })
          )
        }
        const page = yield* Effect.promise(() => fetch(`${urls.org}/orgs?page_size=1`).then((r) => r.json() as Promise<{ orgs: Array<unknown> }>))
        expect(page.orgs).toHaveLength(1)
      }))

    it.effect("a create body's document names every field under both the names a request may use, and nothing else", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        for (const port of ["org", "profile", "license", "workflow"] as const) {
          const document = (yield* Effect.promise(() => fetch(`${urls[port]}/openapi.json`).then((r) => r.json()))) as Document
          const [path, message] = createBodies[port]
          const reference = document.paths[path]!["post"]!.requestBody!.content["application/json"]!.schema.$ref!
          const body = document.components.schemas[reference.replace("#/components/schemas/", "")] as BodySchema
          // The path carries a resource's id; its body may repeat it (`id`), and needs every other
          // field but those the proto marks optional.
          const required = message.fields.filter((field) => !field.proto.proto3Optional)
            .map((field) => field.jsonName).filter((json) => json !== "id" && json !== "workflowOptions")
          expect({ port, differences: differences(body, message, required) }).toEqual({ port, differences: [] })
        }
      }))

    it.effect("Swagger UI's prefilled create is accepted unchanged: the path's example id is the body's, and the body is valid", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        for (const port of ["org", "profile", "license", "workflow"] as const) {
          const document = (yield* Effect.promise(() => fetch(`${urls[port]}/openapi.json`).then((r) => r.json()))) as Document
          for (const [path, operations] of Object.entries(document.paths)) {
            for (const [method, operation] of Object.entries(operations)) {
              const pathParameter = operation.parameters.find((parameter) => parameter.in === "path")
              // Swagger UI fills a path parameter's input from its `example`.
              if (pathParameter !== undefined) expect({ path, example: pathParameter.example }).toEqual({ path, example: expect.any(String) })
              if (operation.requestBody === undefined) continue
              const body = sampleOf(operation.requestBody.content["application/json"]!.schema, document) as Record<string, unknown>
              if (pathParameter !== undefined) expect(body["id"]).toBe(pathParameter.example)
              const url = urls[port] + path.replace("{id}", String(pathParameter?.example))
              // Twice: a replay of the same create answers as the first did.
              for (const attempt of [1, 2]) {
                const reply = yield* Effect.promise(() =>
                  fetch(url, { method: method.toUpperCase(), headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
                )
                expect({ port, method, attempt, status: reply.status, body: yield* Effect.promise(() => reply.text()) })
                  .toMatchObject({ port, method, attempt, status: 200 })
              }
            }
          }
        }
      }))

    it.effect("the bearer scheme is declared, and every error status answers with its kind's error body", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        for (const port of ["org", "profile", "license", "workflow"] as const) {
          const document = yield* Effect.promise(() => fetch(`${urls[port]}/openapi.json`).then((r) => r.json() as Promise<any>))
          expect(document.components.securitySchemes).toMatchObject({ bearer: { type: "http", scheme: "bearer" } })
          expect(document.security).toEqual([{ bearer: [] }])
          expect(JSON.stringify(document)).not.toContain("HttpApiDecodeError")
          for (const [path, operations] of Object.entries(document.paths as Record<string, Record<string, Operation>>)) {
            for (const [method, operation] of Object.entries(operations)) {
              // No operation opts out of the API's bearer requirement.
              expect(operation.security).toBeUndefined()
              const statuses = Object.keys(operation.responses).filter((status) => status !== "200").sort()
              // Every call may be refused as invalid, unauthenticated, unavailable or a server bug;
              // reads of one record may be not found, writes conflict, too large or not JSON; a
              // list has no refusal of its own.
              const own = method !== "get" ? ["409", "413", "415"] : path.endsWith("{id}") ? ["404"] : []
              expect(statuses).toEqual([...own, "400", "401", "500", "503"].sort())
              for (const status of statuses) {
                const reference = operation.responses[status]!.content!["application/json"]!.schema as { readonly $ref: string }
                const name = reference.$ref.replace("#/components/schemas/", "")
                const schema = document.components.schemas[name] as {
                  readonly required: ReadonlyArray<string>
                  readonly properties: Record<string, { readonly enum: ReadonlyArray<number> }>
                }
                // Each status is one failure kind, a named component: the REST error body with
                // the kind's gRPC code, both from the error table.
                const kind = Object.entries(errorTable).find(([, codes]) => String(codes.http) === status)![0]
                expect({ status, name, required: schema.required, code: schema.properties["code"]?.enum }).toEqual({
                  status,
                  name: kind,
                  required: ["code", "message", "details"],
                  code: [errorTable[kind as FailureKind].grpc]
                })
              }
            }
          }
        }
      }))
  })
})
