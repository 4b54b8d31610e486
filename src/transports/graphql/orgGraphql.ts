import { Effect, Schema } from "effect"
import { buildSchema } from "./graphqlJs.js"
import { OrgId } from "../../domain/Ids.js"
import { Org } from "../../domain/Org.js"
import { validate } from "../../domain/Validation.js"
import { Orgs } from "../../services/Orgs.js"
import type { GraphqlApi } from "./GraphqlApi.js"

// The type, field and argument names are part of the wire contract (design §3.6).
const sdl = `
type Org { id: ID!  name: String! }
type GetOrgResponse { org: Org! }
type CreateOrgResponse { org: Org! }
input CreateOrgInput { id: ID!  name: String! }
type Query { org(id: ID!): GetOrgResponse }
type Mutation { createOrg(input: CreateOrgInput!): CreateOrgResponse! }
`

const GetOrg = Schema.Struct({ id: OrgId })

/** Replies are domain values: the GraphQL field names are the domain's. */
export const orgGraphql: GraphqlApi<Orgs> = {
  schema: buildSchema(sdl),
  operations: {
    org: (args) =>
      Effect.gen(function*() {
        const { id } = yield* validate(GetOrg)(args)
        return { org: yield* (yield* Orgs).get(id) }
      }),

    createOrg: (args) =>
      Effect.gen(function*() {
        const org = yield* validate(Org)(args["input"])
        return { org: yield* (yield* Orgs).create(org) }
      })
  }
}
