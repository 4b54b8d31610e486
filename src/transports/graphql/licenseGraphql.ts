import { Effect, Schema } from "effect"
import { buildSchema } from "./graphqlJs.js"
import { LicenseId } from "../../domain/Ids.js"
import { License } from "../../domain/License.js"
import { validate } from "../../domain/Validation.js"
import { Licenses } from "../../services/Licenses.js"
import type { GraphqlApi } from "./GraphqlApi.js"

// The type, field and argument names are part of the wire contract (design §3.6). Timestamps are
// RFC 3339 text: any offset in, canonical UTC `Z` out (the domain normalises them).
const sdl = `
type License { id: ID!  start: String!  end: String!  userId: String! }
type GetLicenseResponse { license: License! }
type CreateLicenseResponse { license: License! }
input CreateLicenseInput { id: ID!  start: String!  end: String!  userId: String! }
type Query { license(id: ID!): GetLicenseResponse }
type Mutation { createLicense(input: CreateLicenseInput!): CreateLicenseResponse! }
`

const GetLicense = Schema.Struct({ id: LicenseId })

/** Replies are domain values: the GraphQL field names are the domain's. */
export const licenseGraphql: GraphqlApi<Licenses> = {
  schema: buildSchema(sdl),
  operations: {
    license: (args) =>
      Effect.gen(function*() {
        const { id } = yield* validate(GetLicense)(args)
        return { license: yield* (yield* Licenses).get(id) }
      }),

    createLicense: (args) =>
      Effect.gen(function*() {
        const license = yield* validate(License)(args["input"])
        return { license: yield* (yield* Licenses).create(license) }
      })
  }
}
