import SwaggerParser from "@apidevtools/swagger-parser"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { errorTable, type FailureKind } from "../../src/transports/ErrorTable.js"
import { Services } from "../e2e/support/Servers.js"
import { inProcessServers } from "../support/InProcessServers.js"

/** Each port's REST paths and methods (contract §3.5): its document lists these and no others. */
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
