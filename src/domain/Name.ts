import { Schema } from "effect"

export const maxNameLength = 200

/** The rule as the fields that hold a name describe it (OpenAPI, GraphQL, the proto comments). */
export const nameRule = `1 to ${maxNameLength} characters, at least one of them visible`

/** With the `u` flag a surrogate pair is one code point, so only an unpaired surrogate is `Cs`. */
const loneSurrogate = /\p{Cs}/u

/** C0 and C1 controls and DEL (NUL, tab, newline, U+0085 ...): no name holds them. */
const control = /\p{Cc}/u

/**
 * Bidi embeddings, overrides (U+202A–U+202E) and isolates (U+2066–U+2069) reorder the text shown
 * after them ("Trojan Source"): a name holding one can display as another name. The marks
 * U+200E, U+200F and U+061C only set a direction and stay allowed (right-to-left names need them).
 */
const bidiControl = /[\u202A-\u202E\u2066-\u2069]/u

/**
 * A character that shows: not white space, not a control or format character, not a code point
 * renderers ignore (U+200B zero-width space and its friends, U+00AD, the Hangul fillers, variation
 * selectors), not the blank Braille cell U+2800 that is used for "invisible" names.
 */
const visible = /[^\p{White_Space}\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\u2800]/u

/**
 * A display name (org name, person's full name): kept verbatim, never trimmed or re-cased. The one
 * rule for names in every access style; the first rule broken is the one reported.
 */
export const Name = Schema.String.pipe(
  Schema.filter((s) => s.trim().length > 0, { message: () => "must not be blank" }),
  Schema.filter((s) => [...s].length <= maxNameLength, {
    message: () => `must be at most ${maxNameLength} characters`
  }),
  // NUL among them: PostgreSQL text cannot hold it, so refusing it here keeps it an invalid_argument, not a 500.
  Schema.filter((s) => !control.test(s), { message: () => "must not contain control characters" }),
  // A lone UTF-16 surrogate (JSON allows "\ud800") has no UTF-8 form: the database would store
  // U+FFFD instead, so the name read back (and a retry's comparison) would differ from the one sent.
  Schema.filter((s) => !loneSurrogate.test(s), { message: () => "must be valid Unicode text (no lone surrogates)" }),
  Schema.filter((s) => !bidiControl.test(s), {
    message: () => "must not contain bidirectional embedding, override or isolate characters (U+202A-U+202E, U+2066-U+2069)"
  }),
  Schema.filter((s) => visible.test(s), { message: () => "must contain a visible character" })
)
export type Name = typeof Name.Type
