import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { Org } from "../../src/domain/Org.js"
import { CreateOrgRequestSchema } from "../../src/gen/org/v1beta1/org_pb.js"
import { DatabaseHealthInMemory } from "../../src/services/database/DatabaseHealth.js"
import { unitOfWorkReferences } from "../../src/services/database/Transient.js"
import { InMemoryStore, inMemoryTable } from "../../src/services/records/InMemoryStore.js"
import { Licenses } from "../../src/services/Licenses.js"
import { Onboarding } from "../../src/services/Onboarding.js"
import { Orgs } from "../../src/services/Orgs.js"
import { Profiles } from "../../src/services/Profiles.js"
import type { ServiceUrls } from "../e2e/support/StyleClient.js"
import { type Answer, connectPost, graphqlCall, protoBytes, restCall, rpcPost, rpcRequest } from "../reliability/support/wire.js"
import { inProcessServers } from "../support/InProcessServers.js"
import { Services } from "../support/Services.js"

/**
 * Every style hands an operation's handler its domain request, decoded by the domain schema
 * before it runs (`requestOf` in src/operations/Operation.ts), never the wire's value: here the
 * org service's `create` sees an `Org` whose id the domain has already made lowercase, whichever
 * style sent it in capitals.
 */

const seen: Array<unknown> = []

/** The in-memory Orgs, noting what `create` is given. */
const NotingOrgs = Layer.effect(
  Orgs,
  Effect.map(InMemoryStore, (store) => {
    const orgs = inMemoryTable<"orgs", undefined>(store, "orgs", "org", () => true)
    return Orgs.make({
      ...orgs,
      create: (org: Org) => Effect.zipRight(Effect.sync(() => seen.push(org)), orgs.create(org))
    })
  })
)

const services = Layer.mergeAll(NotingOrgs, Profiles.InMemory, Licenses.InMemory, Onboarding.InMemory, DatabaseHealthInMemory, unitOfWorkReferences).pipe(
  Layer.provideMerge(InMemoryStore.layer)
)

const styles: ReadonlyArray<readonly [string, (urls: ServiceUrls, id: string, name: string) => Promise<Answer>]> = [
  ["Connect JSON", (urls, id, name) => connectPost(urls.org, "org.v1beta1.OrgService/CreateOrg", JSON.stringify({ id, name }))],
  ["Connect binary", (urls, id, name) => connectPost(urls.org, "org.v1beta1.OrgService/CreateOrg", protoBytes(CreateOrgRequestSchema, { id, name }))],
  ["REST", (urls, id, name) => restCall(`${urls.org}/orgs/${id}`, "PUT", JSON.stringify({ name }))],
  ["GraphQL", (urls, id, name) =>
    graphqlCall(urls.org, JSON.stringify({
      query: "mutation($input: CreateOrgInput!) { createOrg(input: $input) { org { id } } }",
      variables: { input: { id, name } }
    }))],
  ["/rpc", (urls, id, name) => rpcPost(urls.org, rpcRequest("CreateOrg", { id, name }))]
]

describe("handlers take domain values", () => {
  layer(inProcessServers({}, services), { timeout: 120_000, excludeTestServices: true })((it) => {
    for (const [style, send] of styles) {
      it.effect(`${style}: the service's create is given an Org, its id already the domain's lowercase`, () =>
        Effect.gen(function*() {
          const urls = yield* Services
          const id = randomUUID()
          const answer = yield* Effect.promise(() => send(urls, id.toUpperCase(), `Acme ${style}`))
          expect(answer.status).toBe(200)
          const given = seen.at(-1)
          expect(given).toBeInstanceOf(Org)
          expect(given).toMatchObject({ id, name: `Acme ${style}` })
        }))
    }
  })
})
