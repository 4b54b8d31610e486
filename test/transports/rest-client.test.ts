import { describe, expect, layer } from "@effect/vitest"
import { Effect, Either, Option, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import { LicenseHttpApi, OrgHttpApi, restClient } from "../../src/client/index.js"
import { Services } from "../support/Services.js"
import { inProcessServers } from "../support/InProcessServers.js"

/*
 * The typed REST client (HttpApiClient over the ports' HttpApi) meets the server's failures as the
 * tagged errors the HttpApi declares: the domain's, and the HTTP layer's refusals, each read back
 * from the one REST error body at its status.
 */

const failureOf = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.map(Effect.either(effect), (result) => Either.isLeft(result) ? result.left : undefined)

describe("the typed REST client", () => {
  layer(inProcessServers(), { timeout: 60_000 })((it) => {
    it.effect("fails with NotFound, AlreadyExists and InvalidArgument as the domain's tagged errors", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const orgs = yield* restClient(OrgHttpApi, urls.org)
        const id = randomUUID()

        const missing = yield* failureOf(orgs.orgs.getOrg({ path: { id } }))
        expect(missing).toMatchObject({ _tag: "NotFound", resource: "org", id, message: `org ${id} not found` })

        yield* orgs.orgs.createOrg({ path: { id }, payload: { name: "Acme" } })
        const conflict = yield* failureOf(orgs.orgs.putOrg({ path: { id }, payload: { name: "Other" } }))
        expect(conflict).toMatchObject({ _tag: "AlreadyExists", resource: "org", id })

        const invalid = yield* failureOf(orgs.orgs.getOrg({ path: { id: "not-a-uuid" } }))
        // Each broken rule read from the body's details (google.rpc.BadRequest), not from its message.
        expect(invalid).toMatchObject({ _tag: "InvalidArgument", violations: [{ field: "id", description: "must be a UUID (8-4-4-4-12 hex digits)" }] })
        expect((invalid as { message: string }).message).toMatch(/^id: /)

        const licenses = yield* restClient(LicenseHttpApi, urls.license)
        const start = "2026-01-01T00:00:00Z"
        const backwards = yield* failureOf(
          licenses.licenses.createLicense({ path: { id: randomUUID() }, payload: { userId: randomUUID(), start, end: start } as never })
        )
        expect(backwards).toMatchObject({ _tag: "InvalidArgument", message: "end: must be after start" })
      }))
  })

  // A valid name can only be made too large by the server's limit: the client checks the schema first.
  layer(inProcessServers({ readMaxBytes: 16 }), { timeout: 60_000 })((it) => {
    it.effect("fails with ResourceExhausted when the body is over MAX_BODY_BYTES", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const orgs = yield* restClient(OrgHttpApi, urls.org)
        const tooLarge = yield* failureOf(orgs.orgs.createOrg({ path: { id: randomUUID() }, payload: { name: "Acme Corporation" } }))
        expect(tooLarge).toMatchObject({ _tag: "ResourceExhausted" })
      }))
  })

  layer(inProcessServers({ apiToken: Option.some(Redacted.make("s3cret")) }), { timeout: 60_000 })((it) => {
    it.effect("fails with Unauthenticated without the token, and answers with it", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const anonymous = yield* restClient(OrgHttpApi, urls.org)
        const refused = yield* failureOf(anonymous.orgs.listOrgs({ urlParams: {} }))
        expect(refused).toMatchObject({ _tag: "Unauthenticated" })
        const known = yield* restClient(OrgHttpApi, urls.org, { token: "s3cret" })
        expect((yield* known.orgs.listOrgs({ urlParams: {} })).nextPageToken).toBe("")
      }))
  })
})
