import { Schema } from "effect"

export const maxNameLength = 200

/** A display name (org name, person's full name): kept verbatim, never trimmed or re-cased. */
export const Name = Schema.String.pipe(
  Schema.filter((s) => s.trim().length > 0, { message: () => "must not be blank" }),
  Schema.filter((s) => [...s].length <= maxNameLength, {
    message: () => `must be at most ${maxNameLength} characters`
  }),
  // PostgreSQL text cannot hold NUL; refusing it here keeps it an invalid_argument, not a 500.
  Schema.filter((s) => !s.includes("\u0000"), { message: () => "must not contain NUL characters" })
)
export type Name = typeof Name.Type
