import { ApiError, fieldMessages, rest, type Services } from "./Api.js"
import { field, h, link, record } from "./Dom.js"
import { failure } from "./Failure.js"
import type { Created, Run } from "./Resources.js"

/** The console's first page: the onboarding form, what it created, and the recent runs. */

/** `datetime-local` gives the person's own time without an offset; the API takes RFC 3339. */
const instant = (local: string): string | undefined => (local === "" ? undefined : new Date(local).toISOString())

/** The last customer onboarded in this tab. */
let lastOnboarded: Created | undefined

const onboarded = (created: Created) => [
  h("h2", {}, "Onboarded"),
  record([
    ["Workflow run", link(`#/workflows/${created.workflowId}`, created.workflowId)],
    ["Organization", link(`#/orgs/${created.orgId}`, created.orgId)],
    ["Profile", link(`#/profiles/${created.profileId}`, created.profileId)],
    ["License", link(`#/licenses/${created.licenseId}`, created.licenseId)]
  ])
]

export const onboardingPage = (services: Services) => {
  const orgName = field("org-name", "Organization name", { required: true, autocomplete: "organization" })
  const fullName = field("full-name", "Person's full name", { required: true, autocomplete: "name" })
  const start = field("license-start", "License starts", { type: "datetime-local", required: true })
  const end = field("license-end", "License ends", { type: "datetime-local", required: true })
  const workflowId = field("workflow-id", "Workflow id (optional: a UUID; the same id again answers the first run)", {
    autocomplete: "off",
    spellcheck: "false"
  })
  // The API's field paths, each shown next to its input.
  const byPath = new Map([
    ["org.name", orgName],
    ["profile.fullName", fullName],
    ["license.start", start],
    ["license.end", end],
    ["workflowOptions.workflowId", workflowId]
  ])
  const general = h("div", { "aria-live": "polite" })
  // Back from a record, the result it was opened from is still there.
  const result = h("div", { id: "result", "aria-live": "polite" }, ...(lastOnboarded === undefined ? [] : onboarded(lastOnboarded)))
  const submit = h("button", { type: "submit" }, "Onboard")
  const form = h(
    "form",
    { novalidate: true, "aria-labelledby": "onboard-heading" },
    orgName.element,
    fullName.element,
    h("div", { class: "pair" }, start.element, end.element),
    workflowId.element,
    submit,
    general
  )
  form.addEventListener("submit", async (event) => {
    event.preventDefault()
    for (const each of byPath.values()) {
      each.message.textContent = ""
      each.input.removeAttribute("aria-invalid")
    }
    general.replaceChildren()
    result.replaceChildren()
    submit.setAttribute("disabled", "")
    const id = workflowId.input.value.trim()
    try {
      const created = await rest<Created>(services.workflow, "/workflow/workflows/onboarding", {
        org: { name: orgName.input.value },
        profile: { fullName: fullName.input.value },
        license: { start: instant(start.input.value), end: instant(end.input.value) },
        ...(id === "" ? {} : { workflowOptions: { workflowId: id } })
      })
      lastOnboarded = created
      result.replaceChildren(...onboarded(created))
      void recent.refresh()
    } catch (error) {
      if (error instanceof ApiError && error.status === 400) {
        const { fields, rest: unplaced } = fieldMessages(error.message)
        let first: HTMLInputElement | undefined
        for (const [path, message] of fields) {
          const target = byPath.get(path)
          if (target === undefined) {
            unplaced.push(`${path}: ${message}`)
            continue
          }
          target.message.textContent = message
          target.input.setAttribute("aria-invalid", "true")
          first ??= target.input
        }
        if (unplaced.length > 0) general.append(h("p", { class: "error", role: "alert" }, unplaced.join("; ")))
        first?.focus()
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

/** The newest runs, a page at a time (ListOnboardingWorkflows), with the way back to the first page. */
const recentRuns = (services: Services) => {
  const body = h("div", { "aria-live": "polite" })
  const pages: Array<string> = [""]
  const show = async (token: string) => {
    try {
      const query = new URLSearchParams({ pageSize: "10", ...(token === "" ? {} : { pageToken: token }) })
      const page = await rest<{ workflows?: ReadonlyArray<Run>; nextPageToken?: string }>(
        services.workflow,
        `/workflow/workflows/onboarding?${query}`
      )
      const runs = page.workflows ?? []
      const next = page.nextPageToken ?? ""
      const table = runs.length === 0
        ? h("p", {}, "No runs yet.")
        : h(
          "table",
          {},
          h("caption", {}, `Runs ${pages.length * 10 - 9}–${pages.length * 10 - 10 + runs.length}, newest first`),
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Workflow run"), h("th", { scope: "col" }, "Created"), h("th", { scope: "col" }, "Status"))),
          h(
            "tbody",
            {},
            ...runs.map((run) =>
              h("tr", {}, h("td", {}, link(`#/workflows/${run.workflowId}`, run.workflowId)), h("td", {}, run.createdAt), h("td", {}, run.status))
            )
          )
        )
      const nav = h(
        "div",
        { class: "paging" },
        pages.length > 1 && h("button", { type: "button", onclick: () => { pages.length = 1; void show("") } }, "Newest"),
        next !== "" && h("button", { type: "button", onclick: () => { pages.push(next); void show(next) } }, "Older runs")
      )
      body.replaceChildren(table, nav)
    } catch (error) {
      body.replaceChildren(failure(error, "runs"))
    }
  }
  return {
    element: h("section", { "aria-labelledby": "recent-heading" }, h("h2", { id: "recent-heading" }, "Recent runs"), body),
    refresh: () => {
      pages.length = 1
      return show("")
    }
  }
}
