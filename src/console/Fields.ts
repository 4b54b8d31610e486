/**
 * The onboarding form's fields, as the server derives them from the workflow's request schema
 * (`onboardingForm` in `/console/config.json`): each with the path the API names it by in a
 * refusal's violations (Violations.ts) and its description, whose first clause is the label a person reads. Every message about
 * a field is written with labels from here, never with the API's paths. A field added to the
 * workflow's request is in the form with no edit here.
 */

/** One field of the request, as `/console/config.json` gives it. */
export interface FormField {
  readonly path: string
  readonly description: string
  readonly required: boolean
}

/** The form's fields of `/console/config.json`, when it gives them. */
export const formIn = (config: unknown): ReadonlyArray<FormField> | undefined => {
  if (typeof config !== "object" || config === null || !("onboardingForm" in config)) return undefined
  const { onboardingForm } = config
  if (!Array.isArray(onboardingForm)) return undefined
  const fields = onboardingForm.flatMap((each: unknown) => {
    if (typeof each !== "object" || each === null || !("path" in each && "description" in each && "required" in each)) return []
    const { description, path, required } = each
    return typeof path === "string" && typeof description === "string" && typeof required === "boolean" ? [{ path, description, required }] : []
  })
  return fields.length === onboardingForm.length ? fields : undefined
}

/** A description's first clause, as written ("the org's display name: 1 to 200 ..." → "the org's display name"). */
export const clauseOf = (description: string) => {
  const at = description.indexOf(": ")
  return at === -1 ? description : description.slice(0, at)
}

/** What a description says after its first clause (the rule in words), if anything. */
const restOf = (description: string) => {
  const at = description.indexOf(": ")
  return at === -1 ? undefined : description.slice(at + 2)
}

/** The label a person reads: the description's first clause, as a sentence starts it. */
export const labelOf = (description: string) => {
  const clause = clauseOf(description)
  return `${clause.charAt(0).toUpperCase()}${clause.slice(1)}`
}

/** The input's id: its path in kebab case (`profile.fullName` → `profile-full-name`). */
export const inputIdOf = (path: string) =>
  [...path].map((character) => (character === "." ? "-" : character >= "A" && character <= "Z" ? `-${character.toLowerCase()}` : character)).join("")

/** The workflow id's field: the console fills it in and keeps it (WorkflowId.ts). */
export const workflowIdPath = "workflowOptions.workflowId"

type Input = Readonly<Record<string, string | true>>

/**
 * How the console shows some fields, which is not the schema's to say: the input's kind, what a
 * browser may fill in, the workflow id's hint. A field not named here is a text input.
 */
const presentation: Readonly<Record<string, { readonly input: Input; readonly hint?: string }>> = {
  "org.name": { input: { autocomplete: "organization" } },
  "profile.fullName": { input: { autocomplete: "name" } },
  "license.start": { input: { type: "datetime-local" } },
  "license.end": { input: { type: "datetime-local" } },
  [workflowIdPath]: {
    hint: "Filled in with a new UUID for each customer, or type your own. The same id again answers with the first run: a customer is onboarded once.",
    input: { autocomplete: "off", spellcheck: "false", class: "id" }
  }
}

/** The request's parts in the order the form shows them; a part not named here comes after them. */
const partOrder = ["org", "profile", "license", "workflowOptions"]

const rank = (path: string) => {
  const at = partOrder.indexOf(path.split(".", 1)[0] ?? path)
  return at === -1 ? partOrder.length : at
}

/** One input of the form, in the form's order (which is the order its messages are read in). */
export interface FormInput {
  readonly path: string
  readonly id: string
  readonly label: string
  readonly hint: string | undefined
  readonly input: Input
  readonly required: boolean
}

export const formInputs = (form: ReadonlyArray<FormField>): ReadonlyArray<FormInput> =>
  form.map((field, at) => ({ field, at })).sort((a, b) => rank(a.field.path) - rank(b.field.path) || a.at - b.at).map(({ field }) => {
    const shown = presentation[field.path]
    return {
      path: field.path,
      id: inputIdOf(field.path),
      label: labelOf(field.description),
      hint: shown?.hint ?? restOf(field.description),
      input: { ...(shown?.input ?? {}), ...(field.required ? { required: true as const } : {}) },
      required: field.required
    }
  })
