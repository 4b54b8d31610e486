import { create } from "@bufbuild/protobuf"
import { ConnectError, createClient } from "@connectrpc/connect"
import { createGrpcTransport } from "@connectrpc/connect-node"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Health, HealthCheckRequestSchema, HealthCheckResponse_ServingStatus } from "../../src/gen/grpc/health/v1/health_pb.js"
import { listMethodsWithBufCurl, listServicesWithBufCurl } from "./support/bufCurlClient.js"
import { catalog } from "./support/conformance/Catalog.js"
import { cellName, unwrapped } from "./support/conformance/Cell.js"
import { cells } from "./support/conformance/Cells.js"
import { samples } from "./support/conformance/Samples.js"
import { Table, TableLive } from "./support/conformance/Table.js"
import { Services } from "../support/Services.js"
import { deployment, ServicesLive } from "./support/Servers.js"
import { GrpcCode, type ServiceUrls } from "./support/StyleClient.js"

/**
 * The conformance table: every operation of every service's table (support/conformance/Catalog.ts)
 * in every cell of styles × protocols (Cells.ts), each with the cases of Samples.ts, a success
 * and a refusal at least, against the spawned services. Nothing here names an operation or a
 * style: a new entry in an operations table, or a new cell, is in the table as it is added.
 */

const serviceOf = {
  org: "org.v1beta1.OrgService",
  profile: "profile.v1beta1.ProfileService",
  license: "license.v1beta1.LicenseService",
  workflow: "workflow.v1beta1.WorkflowService"
} as const

describe(`every style on every protocol, every operation (${deployment})`, () => {
  layer(Layer.provideMerge(TableLive, ServicesLive), { timeout: 180_000, excludeTestServices: true })((it) => {
    it.effect("every operation of the tables has samples: a success and a refusal", () =>
      Effect.gen(function*() {
        const { seed } = yield* Table
        const short = catalog.flatMap(({ tag }) => {
          const cases = samples[tag]?.(seed) ?? []
          const kinds = new Set(cases.map((each) => ("reply" in each.expected ? "success" : "refusal")))
          return kinds.size === 2 ? [] : [`${tag}: ${kinds.size === 0 ? "no samples" : `only a ${[...kinds][0]}`}`]
        })
        expect(catalog.length).toBeGreaterThan(0)
        expect(short).toEqual([])
      }))

    for (const cell of cells) {
      for (const operation of catalog) {
        it.effect(`${cellName(cell)}: ${operation.tag}`, () =>
          Effect.gen(function*() {
            const { clientOf, seed } = yield* Table
            const cases = samples[operation.tag]
            if (cases === undefined) throw new Error(`no samples for ${operation.tag} in support/conformance/Samples.ts`)
            for (const { expected, payload, title } of cases(seed)) {
              const answer = yield* Effect.promise(() => clientOf(cell).call(operation, payload))
              if ("reply" in expected) {
                const got = answer.ok ? { title, reply: unwrapped(answer.reply) } : { title, refused: answer }
                expect(got).toMatchObject({ title, reply: expected.reply })
              } else {
                const got = answer.ok ? { title, reply: answer.reply } : { title, refused: answer.code, message: answer.message }
                expect(got).toMatchObject({ title, refused: expected.refused, ...(expected.message === undefined ? {} : { message: expected.message }) })
              }
            }
          }))
      }
    }

    it.effect("a page token is the service's, not the style's: every cell hands out the same ones", () =>
      Effect.gen(function*() {
        const { clientOf } = yield* Table
        const lists = catalog.filter(({ tag }) => tag.startsWith("List"))
        const tokens = []
        for (const cell of cells) {
          const seen: Record<string, unknown> = {}
          for (const operation of lists) {
            const answer = yield* Effect.promise(() => clientOf(cell).call(operation, { pageSize: 1 }))
            seen[operation.tag] = answer.ok ? (answer.reply as { nextPageToken?: unknown }).nextPageToken : answer
          }
          tokens.push({ cell: cellName(cell), seen })
        }
        const first = tokens[0]!.seen
        expect(Object.values(first).every((token) => typeof token === "string" && token !== "")).toBe(true)
        expect(tokens).toEqual(tokens.map(({ cell }) => ({ cell, seen: first })))
      }))

    it.effect("reflection lists each port's service, health and reflection, without proto files", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        for (const [port, service] of Object.entries(serviceOf)) {
          const listed = yield* Effect.promise(() => listServicesWithBufCurl(urls[port as keyof ServiceUrls]))
          expect(listed.sort()).toEqual(
            [service, "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"].sort()
          )
        }
        for (const { service, tag } of catalog) {
          expect(yield* Effect.promise(() => listMethodsWithBufCurl(urls[service]))).toContain(`${serviceOf[service]}/${tag}`)
        }
      }))

    it.effect("every port reports SERVING through gRPC health (Check and Watch) and ready through /readyz", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        for (const [name, baseUrl] of Object.entries(urls)) {
          const health = createClient(Health, createGrpcTransport({ baseUrl }))
          const service = serviceOf[name as keyof ServiceUrls]
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
          expect((yield* Effect.promise(() => fetch(`${baseUrl}/healthz`))).status).toBe(200)
          expect((yield* Effect.promise(() => fetch(`${baseUrl}/readyz`))).status).toBe(200)
        }
      }))
  })
})
