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

export const OrgId = Uuid.pipe(Schema.brand("OrgId"))
export type OrgId = typeof OrgId.Type

export const ProfileId = Uuid.pipe(Schema.brand("ProfileId"))
export type ProfileId = typeof ProfileId.Type

/** The user a license belongs to; the onboarding workflow uses the new profile's id. */
export const UserId = Uuid.pipe(Schema.brand("UserId"))
export type UserId = typeof UserId.Type

export const LicenseId = Uuid.pipe(Schema.brand("LicenseId"))
export type LicenseId = typeof LicenseId.Type

export const WorkflowId = Uuid.pipe(Schema.brand("WorkflowId"))
export type WorkflowId = typeof WorkflowId.Type
