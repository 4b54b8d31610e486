import { clauseOf, type FormField, labelOf } from "./Fields.js"
import { labelOf as wordsOf } from "./FurtherFields.js"

/**
 * A refusal's broken rules, as its REST body's `details` carries them (google.rpc.Status JSON,
 * AIP-193): a `google.rpc.BadRequest` whose `fieldViolations` each name a field by its path as
 * the console sent it (`profile.fullName`) and say the rule in words. The console reads these,
 * never the refusal's message, to know which field a rule is about.
 */
export interface Violation {
  readonly field: string
  readonly description: string
}

const badRequest = "type.googleapis.com/google.rpc.BadRequest"

/** proto3 JSON leaves out an empty string: a violation without `field` is about the request as a whole. */
const text = (value: unknown) => (typeof value === "string" ? value : "")

/** Every field violation of a refusal's details, in the order the server gave them. */
export const violationsIn = (details: ReadonlyArray<unknown>): ReadonlyArray<Violation> =>
  details.flatMap((detail: unknown) => {
    if (typeof detail !== "object" || detail === null || !("@type" in detail) || detail["@type"] !== badRequest) return []
    const listed: unknown = "fieldViolations" in detail ? detail.fieldViolations : []
    return (Array.isArray(listed) ? listed : []).flatMap((each: unknown) =>
      typeof each === "object" && each !== null
        ? [{ field: "field" in each ? text(each.field) : "", description: "description" in each ? text(each.description) : "" }]
        : []
    )
  })

/** A character that may continue a path (`license.start` is not in `license.startedAt`). */
const continuesPath = (character: string | undefined) =>
  character !== undefined && (character === "_" || character === "." || (character.toLowerCase() !== character.toUpperCase()) || (character >= "0" && character <= "9"))

/** `text` with every whole occurrence of `path` written as `words`. */
const spelled = (text: string, path: string, words: string) => {
  let out = ""
  let from = 0
  for (let at = text.indexOf(path); at !== -1; at = text.indexOf(path, at + path.length)) {
    if (continuesPath(text[at - 1]) || continuesPath(text[at + path.length])) continue
    out += text.slice(from, at) + words
    from = at + path.length
  }
  return out + text.slice(from)
}

/**
 * A rule's words with each form field it names (a violation's description may name another,
 * `must be after license.start`) written as that field's clause, as a person reads it; the
 * longest paths first, so that none is taken for a part of another.
 */
export const inWords = (description: string, form: ReadonlyArray<FormField>): string =>
  [...form]
    .sort((a, b) => b.path.length - a.path.length)
    .reduce((text, { description: clause, path }) => spelled(text, path, clauseOf(clause)), description)

/**
 * Each violation under the form's field it names (`label rule`, several joined by "; "), and the
 * rest — about the request as a whole, or a field the form does not have — for the form's
 * general place.
 */
export const placed = (
  violations: ReadonlyArray<Violation>,
  form: ReadonlyArray<FormField>
): { readonly fields: ReadonlyMap<string, string>; readonly rest: ReadonlyArray<string> } => {
  const fields = new Map<string, string>()
  const rest: Array<string> = []
  for (const { description, field } of violations) {
    const known = form.find((each) => each.path === field)
    const words = inWords(description, form)
    if (known === undefined) rest.push(field === "" ? words : `${field}: ${words}`)
    else {
      const before = fields.get(field)
      fields.set(field, before === undefined ? `${labelOf(known.description)} ${words}` : `${before}; ${words}`)
    }
  }
  return { fields, rest }
}

/**
 * A read the service refused (an id typed in the address) as a person reads it: each rule, its
 * field's name as words ("Id must be a UUID …"); without violations (the edge's refusal), its message.
 */
export const refusedInWords = (details: ReadonlyArray<unknown>, message: string): string => {
  const violations = violationsIn(details)
  if (violations.length === 0) return message
  return `${violations.map(({ description, field }) => (field === "" ? description : `${wordsOf(field)} ${description}`)).join("; ")}.`
}
