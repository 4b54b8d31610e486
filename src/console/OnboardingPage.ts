import { ApiError, rest, type Services } from "./Api.js"
import { period } from "./Dates.js"
import { field, h, id, link, record, table } from "./Dom.js"
import { failure } from "./Failure.js"
import { type FormField, formInputs, workflowIdPath } from "./Fields.js"
import { runColumns } from "./Lists.js"
import type { Created, Run } from "./Resources.js"
import { href, recordHref } from "./Route.js"
import { placed, violationsIn } from "./Violations.js"
import { answered, contentEdited, type FormId, freshId, outcomeOf, toSend, typedId } from "./WorkflowId.js"

/** The console's first page: the onboarding form, what it created, and the newest runs. */

/** `datetime-local` gives the person's own time without an offset; the API takes RFC 3339. */
const instant = (local: string): string | undefined => (local === "" ? undefined : new Date(local).toISOString())

interface Onboarded {
  readonly created: Created
  readonly org: string
  readonly person: string
  readonly start: string
  readonly end: string
}

/** The last customer onboarded in this tab: back from a record, the result it was opened from is still there. */
let lastOnboarded: Onboarded | undefined

/** The form's workflow id, kept in this tab as the result is: back from a record, an unanswered send's id is still the one sent. */
let formId: FormId | undefined

const onboarded = ({ created, end, org, person, start }: Onboarded) => [
  h("h2", {}, "Onboarded"),
  record([
    ["Workflow run", link(recordHref("workflows", created.workflowId), id(created.workflowId))],
    ["Organization", link(recordHref("orgs", created.orgId), org)],
    ["Profile", link(recordHref("profiles", created.profileId), person)],
    ["License", link(recordHref("licenses", created.licenseId), period(start, end))]
  ])
]

/** A run already made under this id with other content: the message, and the way to that run. */
const alreadyExists = (workflowId: string) =>
  h(
    "span",
    {},
    "A run with this id already exists with different content. ",
    link(recordHref("workflows", workflowId), "Open the existing run"),
    ", or clear the id for a new run."
  )

/**
 * The request's body: each input's value at its path, each part an object (so a missing date is
 * refused as that field's); an optional field left empty is left out.
 */
const bodyOf = (values: ReadonlyArray<{ readonly path: string; readonly value: string | undefined; readonly required: boolean }>) => {
  const body: Record<string, Record<string, string>> = {}
  for (const { path, required, value } of values) {
    const [part = path, name = path] = path.split(".", 2)
    body[part] ??= {}
    if (value !== undefined && (value !== "" || required)) body[part][name] = value
  }
  return body
}

/** Side by side: two date inputs in a row (a period's start and end). */
const laidOut = (elements: ReadonlyArray<{ readonly element: HTMLElement; readonly input: HTMLInputElement }>) => {
  const out: Array<HTMLElement> = []
  for (let at = 0; at < elements.length; at++) {
    const [one, next] = [elements[at], elements[at + 1]]
    if (one === undefined) continue
    if (next !== undefined && one.input.type === "datetime-local" && next.input.type === "datetime-local") {
      out.push(h("div", { class: "pair" }, one.element, next.element))
      at++
    } else out.push(one.element)
  }
  return out
}

export const onboardingPage = (services: Services, request: ReadonlyArray<FormField>) => {
  /** In the form's order, which is the order its messages are read in. */
  const inOrder = formInputs(request).map((each) => ({ ...each, ...field(each.id, each.label, each.input, each.hint) }))
  const at = (path: string) => inOrder.find((each) => each.path === path)
  const general = h("div", { "aria-live": "polite" })
  const result = h("div", { id: "result", "aria-live": "polite" }, ...(lastOnboarded === undefined ? [] : onboarded(lastOnboarded)))
  const submit = h("button", { type: "submit" }, "Onboard")
  const form = h("form", { novalidate: true, "aria-labelledby": "onboard-heading" }, ...laidOut(inOrder), submit, general)
  const idInput = at(workflowIdPath)?.input ?? h("input", { type: "hidden" })
  const current = () => (formId ??= freshId())
  /** The field shows the id the form sends, and nothing else. */
  const hold = (next: FormId) => {
    formId = next
    if (idInput.value !== next.workflowId) idInput.value = next.workflowId
    return next
  }
  hold(current())
  form.addEventListener("input", (event) => {
    hold(event.target === idInput ? typedId(current(), idInput.value) : contentEdited(current()))
  })
  /** Each message under its field; focus on the first of them in the form's order, which is the table's. */
  const showInvalid = (messages: ReadonlyMap<string, string | Node>) => {
    let first: HTMLInputElement | undefined
    for (const target of inOrder) {
      const message = messages.get(target.path)
      if (message === undefined) continue
      target.message.replaceChildren(message)
      target.input.setAttribute("aria-invalid", "true")
      first ??= target.input
    }
    first?.focus()
  }
  form.addEventListener("submit", async (event) => {
    event.preventDefault()
    for (const each of inOrder) {
      each.message.replaceChildren()
      each.input.removeAttribute("aria-invalid")
    }
    general.replaceChildren()
    result.replaceChildren()
    submit.setAttribute("disabled", "")
    const sending = hold(toSend(current()))
    const { workflowId } = sending
    try {
      // Inside the try: a date the input allows but Date cannot hold (a year past 9999) throws,
      // and is then shown, with the button enabled again.
      const values = inOrder.map(({ input, path, required }) => ({
        path,
        required,
        value: path === workflowIdPath ? workflowId : input.type === "datetime-local" ? instant(input.value) : input.value
      }))
      const valueAt = (path: string) => values.find((each) => each.path === path)?.value
      const sent = { org: valueAt("org.name") ?? "", person: valueAt("profile.fullName") ?? "", start: valueAt("license.start"), end: valueAt("license.end") }
      const created = await rest<Created>(services, "workflow", "/workflow/workflows/onboarding", bodyOf(values))
      // A second click cannot onboard this customer again: the form is empty, under a new id.
      form.reset()
      hold(answered(sending, "created"))
      // The service refuses a license without both dates: a run created had both.
      const { end, start } = sent
      if (start !== undefined && end !== undefined) {
        lastOnboarded = { created, org: sent.org, person: sent.person, start, end }
        result.replaceChildren(...onboarded(lastOnboarded))
      }
      void recent.refresh()
    } catch (error) {
      hold(answered(sending, outcomeOf(error instanceof ApiError ? error.status : undefined)))
      if (error instanceof ApiError && error.status === 400) {
        // A refusal without violations (the edge's: a body it could not read) is said as it is.
        const violations = violationsIn(error.details)
        const { fields: messages, rest: unplaced } = placed(violations, request)
        const elsewhere = violations.length === 0 ? [error.message] : unplaced
        if (elsewhere.length > 0) general.append(h("p", { class: "error", role: "alert" }, elsewhere.join("; ")))
        showInvalid(messages)
      } else if (error instanceof ApiError && error.status === 409) {
        showInvalid(new Map([[workflowIdPath, alreadyExists(workflowId)]]))
      } else {
        general.append(failure(error, "workflow"))
      }
    } finally {
      submit.removeAttribute("disabled")
    }
  })
  const recent = recentRuns(services)
  void recent.refresh()
  return h(
    "div",
    {},
    h("section", {}, h("h1", { id: "onboard-heading", tabindex: "-1" }, "Onboard a customer"), form, result),
    recent.element
  )
}

/** The newest few runs; the list page has them all. */
const recentRuns = (services: Services) => {
  const shown = 5
  const body = h("div", { "aria-live": "polite" })
  const refresh = async () => {
    try {
      const page = await rest<{ workflows?: ReadonlyArray<Run> }>(services, "workflow", `/workflow/workflows/onboarding?pageSize=${shown}`)
      const runs = page.workflows ?? []
      if (runs.length === 0) {
        body.replaceChildren(h("p", {}, "No runs yet."))
        return
      }
      const { columns, failed } = await runColumns(services, runs)
      body.replaceChildren(
        ...(failed === undefined ? [] : [failure(failed, "name")]),
        table(runs.length === 1 ? "The newest run" : `The ${runs.length} newest runs`, columns, runs),
        h("p", {}, link(href("workflows"), "All workflow runs"))
      )
    } catch (error) {
      body.replaceChildren(failure(error, "runs"))
    }
  }
  return {
    element: h("section", { "aria-labelledby": "recent-heading" }, h("h2", { id: "recent-heading" }, "Recent runs"), body),
    refresh
  }
}
