/**
 * The onboarding form's fields, in the order the form shows them: each with the path the API
 * names it by in a refusal, and the label a person reads. Every message about a field is written
 * with labels from here, never with the API's paths.
 */
export const onboardingFields = [
  { path: "org.name", id: "org-name", label: "Organization name", input: { required: true, autocomplete: "organization" } },
  { path: "profile.fullName", id: "full-name", label: "Person's full name", input: { required: true, autocomplete: "name" } },
  { path: "license.start", id: "license-start", label: "License starts", input: { type: "datetime-local", required: true } },
  { path: "license.end", id: "license-end", label: "License ends", input: { type: "datetime-local", required: true } },
  {
    path: "workflowOptions.workflowId",
    id: "workflow-id",
    label: "Workflow id",
    hint: "Filled in with a new UUID for each customer, or type your own. The same id again answers with the first run: a customer is onboarded once.",
    input: { autocomplete: "off", spellcheck: "false", class: "id" }
  }
] as const

export type FieldPath = (typeof onboardingFields)[number]["path"]

const camel = (path: string) => path.replace(/_(\w)/g, (_, letter: string) => letter.toUpperCase())
const snake = (path: string) => path.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)

const labels = new Map<string, string>(
  onboardingFields.flatMap(({ label, path }) => [[path, label], [snake(path), label]] as const)
)

/** A message with every field path in it spelled as that field's label ("must be after License starts"). */
export const withLabels = (message: string): string =>
  message.replace(/\b[a-z][\w]*(?:\.[a-z][\w]*)+\b/gi, (path) => labels.get(path) ?? path)

/**
 * A refusal's message names each broken rule's field (`license.end: must be after license.start;
 * org.name: must not be blank`): each rule under its field's path (in the form's spelling), and
 * whatever names no field of the form, in labels.
 */
export const fieldMessages = (message: string): { readonly fields: Map<string, string>; readonly rest: Array<string> } => {
  const fields = new Map<string, string>()
  const rest: Array<string> = []
  for (const part of message.split(/;\s+(?=[\w.]+: )/)) {
    const [, name, said] = /^([\w.]+): (.*)$/s.exec(part) ?? []
    const path = name === undefined ? undefined : camel(name)
    const label = path === undefined ? undefined : labels.get(path)
    if (path === undefined || label === undefined || said === undefined) rest.push(withLabels(part))
    else fields.set(path, `${label} ${withLabels(said)}`)
  }
  return { fields, rest }
}
