import { rest, type Services } from "./Api.js"
import { field, h, link, record } from "./Dom.js"
import { failure } from "./Failure.js"
import type { License, Org, Profile, Run } from "./Resources.js"

/**
 * What the console shows, one function per page; each answers the element to put in `<main>`.
 * Here the record pages, each a lookup by id; OnboardingPage.ts holds the onboarding page.
 */

export { onboardingPage } from "./OnboardingPage.js"

/** A lookup page: a form for the id, and the record when the address names one. */
const lookup = <A>(options: {
  readonly heading: string
  readonly route: string
  readonly what: string
  readonly id: string | undefined
  readonly load: (id: string) => Promise<A>
  readonly show: (value: A) => HTMLElement
}) => {
  const idField = field(`${options.route}-id`, `${options.what[0]!.toUpperCase()}${options.what.slice(1)} id`, {
    required: true,
    value: options.id ?? "",
    autocomplete: "off",
    spellcheck: "false"
  })
  const form = h("form", { class: "lookup" }, idField.element, h("button", { type: "submit" }, "Look up"))
  form.addEventListener("submit", (event) => {
    event.preventDefault()
    location.hash = `#/${options.route}/${encodeURIComponent(idField.input.value.trim())}`
  })
  const shown = h("div", { "aria-live": "polite" })
  if (options.id !== undefined && options.id !== "") {
    shown.append(h("p", {}, "Loading…"))
    options.load(options.id).then(
      (value) => shown.replaceChildren(options.show(value)),
      (error) => shown.replaceChildren(failure(error, options.what))
    )
  }
  return h("section", {}, h("h1", { tabindex: "-1" }, options.heading), form, shown)
}

const path = (id: string) => encodeURIComponent(id)

export const orgPage = (services: Services, id: string | undefined) =>
  lookup({
    heading: "Organization",
    route: "orgs",
    what: "org",
    id,
    load: (id) => rest<{ org: Org }>(services.org, `/orgs/${path(id)}`),
    show: ({ org }) => record([["Id", org.id], ["Name", org.name]])
  })

export const profilePage = (services: Services, id: string | undefined) =>
  lookup({
    heading: "Profile",
    route: "profiles",
    what: "profile",
    id,
    load: (id) => rest<{ profile: Profile }>(services.profile, `/profiles/${path(id)}`),
    show: ({ profile }) =>
      record([["Id", profile.id], ["Full name", profile.fullName], ["Organization", link(`#/orgs/${profile.orgId}`, profile.orgId)]])
  })

export const licensePage = (services: Services, id: string | undefined) =>
  lookup({
    heading: "License",
    route: "licenses",
    what: "license",
    id,
    load: (id) => rest<{ license: License }>(services.license, `/licenses/${path(id)}`),
    show: ({ license }) =>
      record([
        ["Id", license.id],
        ["Holder (profile)", link(`#/profiles/${license.userId}`, license.userId)],
        ["Starts", license.start],
        ["Ends", license.end]
      ])
  })

export const workflowPage = (services: Services, id: string | undefined) =>
  lookup({
    heading: "Workflow run",
    route: "workflows",
    what: "workflow run",
    id,
    load: (id) => rest<{ workflow: Run }>(services.workflow, `/workflow/workflows/onboarding/${path(id)}`),
    show: ({ workflow: run }) =>
      record([
        ["Workflow id", run.workflowId],
        ["Status", run.status],
        ["Created", run.createdAt],
        ["Organization", link(`#/orgs/${run.orgId}`, run.orgId)],
        ["Profile", link(`#/profiles/${run.profileId}`, run.profileId)],
        ["License", link(`#/licenses/${run.licenseId}`, run.licenseId)]
      ])
  })
