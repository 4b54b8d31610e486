import { Schema } from "effect"

const uuidPattern = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

/**
 * Any 8-4-4-4-12 hex string, accepted in either case and normalised to lowercase, because
 * PostgreSQL's uuid type prints lowercase and clients compare ids as strings.
 */
export const Uuid = Schema.transform(
  Schema.String.pipe(Schema.pattern(uuidPattern, { message: () => "must be a UUID (8-4-4-4-12 hex digits)" })),
  Schema.String.pipe(Schema.pattern(/^[0-9a-f-]{36}$/)),
  { strict: true, decode: (s) => s.toLowerCase(), encode: (s) => s }
)

/**
 * Each kind of id has one fixed example (documentation only: OpenAPI's `examples`, which Swagger
 * UI fills in). The same value in a path and in a body, so a prefilled request is consistent, and
 * the examples point at each other (a profile in the example org, a license held by the example
 * profile), so a person can create them in turn and read each one back.
 */
const exampleProfileId = "22222222-2222-4222-8222-222222222222"
const example = <const B extends string>(brand: B, value: string) => {
  const id = Uuid.pipe(Schema.brand(brand))
  return id.annotations({ examples: [Schema.decodeSync(id)(value)] })
}

export const OrgId = example("OrgId", "11111111-1111-4111-8111-111111111111")
export type OrgId = typeof OrgId.Type

export const ProfileId = example("ProfileId", exampleProfileId)
export type ProfileId = typeof ProfileId.Type

/** The user a license belongs to; the onboarding workflow uses the new profile's id. */
export const UserId = example("UserId", exampleProfileId)
export type UserId = typeof UserId.Type

export const LicenseId = example("LicenseId", "33333333-3333-4333-8333-333333333333")
export type LicenseId = typeof LicenseId.Type

export const WorkflowId = example("WorkflowId", "44444444-4444-4444-8444-444444444444")
export type WorkflowId = typeof WorkflowId.Type
