import { Schema } from "effect"

export const maxNameLength = 200

/** With the `u` flag a surrogate pair is one code point, so only an unpaired surrogate is `Cs`. */
const loneSurrogate = /\p{Cs}/u

/** A display name (org name, person's full name): kept verbatim, never trimmed or re-cased. */
export const Name = Schema.String.pipe(
  Schema.filter((s) => s.trim().length > 0, { message: () => "must not be blank" }),
  Schema.filter((s) => [...s].length <= maxNameLength, {
    message: () => `must be at most ${maxNameLength} characters`
  }),
  // PostgreSQL text cannot hold NUL; refusing it here keeps it an invalid_argument, not a 500.
  Schema.filter((s) => !s.includes("\u0000"), { message: () => "must not contain NUL characters" }),
  // A lone UTF-16 surrogate (JSON allows "\ud800") has no UTF-8 form: the database would store
  // U+FFFD instead, so the name read back (and a retry's comparison) would differ from the one sent.
  Schema.filter((s) => !loneSurrogate.test(s), { message: () => "must be valid Unicode text (no lone surrogates)" })
)
export type Name = typeof Name.Type
