import { Effect, Schema } from "effect"
import { buildSchema } from "./graphqlJs.js"
import { ProfileId } from "../../domain/Ids.js"
import { Profile } from "../../domain/Profile.js"
import { validate } from "../../domain/Validation.js"
import { Profiles } from "../../services/Profiles.js"
import type { GraphqlApi } from "./GraphqlApi.js"

// The type, field and argument names are part of the wire contract (design §3.6).
const sdl = `
type Profile { id: ID!  fullName: String!  orgId: String! }
type GetProfileResponse { profile: Profile! }
type CreateProfileResponse { profile: Profile! }
input CreateProfileInput { id: ID!  fullName: String!  orgId: String! }
type Query { profile(id: ID!): GetProfileResponse }
type Mutation { createProfile(input: CreateProfileInput!): CreateProfileResponse! }
`

const GetProfile = Schema.Struct({ id: ProfileId })

/** Replies are domain values: the GraphQL field names are the domain's. */
export const profileGraphql: GraphqlApi<Profiles> = {
  schema: buildSchema(sdl),
  operations: {
    profile: (args) =>
      Effect.gen(function*() {
        const { id } = yield* validate(GetProfile)(args)
        return { profile: yield* (yield* Profiles).get(id) }
      }),

    createProfile: (args) =>
      Effect.gen(function*() {
        const profile = yield* validate(Profile)(args["input"])
        return { profile: yield* (yield* Profiles).create(profile) }
      })
  }
}
