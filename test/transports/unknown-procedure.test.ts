import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { errorTable } from "../../src/transports/ErrorTable.js"
import { Services } from "../support/Services.js"
import { envelope, grpcRaw, httpCall } from "../reliability/support/wire.js"
import { inProcessServers } from "../support/InProcessServers.js"

/**
 * A procedure path the port does not serve (a wrong method, service or package name) is answered
 * `unimplemented` in the caller's own protocol, as connect-node answers its other refusals: not
 * with the REST error body, which a Connect or gRPC client cannot read.
 */
const unknown = ["org.v1beta1.OrgService/DeleteOrg", "org.v1beta1.NoSuchService/GetOrg", "other.v9.OrgService/GetOrg"]
const { grpc, http } = errorTable.Unimplemented

describe("an unknown Connect or gRPC procedure", () => {
  layer(inProcessServers(), { timeout: 30_000 })((it) => {
    it.effect.each(unknown)("%s: Connect JSON and binary get Connect's unimplemented error", (path) =>
      Effect.gen(function*() {
        const { org } = yield* Services
        for (const contentType of ["application/json", "application/proto"]) {
          const reply = yield* Effect.promise(() => httpCall(`${org}/${path}`, { headers: { "content-type": contentType }, body: "{}" }))
          expect([contentType, reply.status, reply.json?.code]).toEqual([contentType, http, "unimplemented"])
          expect(reply.json?.message).toContain(path)
        }
      }))

    it.effect.each(unknown)("%s: gRPC and gRPC-Web get status 12, trailers-only", (path) =>
      Effect.gen(function*() {
        const { org } = yield* Services
        const answer = yield* Effect.promise(() => grpcRaw(org, path, envelope(new Uint8Array())))
        expect([answer.status, answer.code]).toEqual([200, grpc])
        expect(answer.message).toContain(path)
        const web = yield* Effect.promise(() =>
          httpCall(`${org}/${path}`, { headers: { "content-type": "application/grpc-web+proto", "x-grpc-web": "1" }, body: envelope(new Uint8Array()) })
        )
        expect([web.status, web.headers.get("grpc-status")]).toEqual([200, String(grpc)])
      }))
  })
})
