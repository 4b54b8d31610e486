import { apiToken, type Services, servicesIn } from "./Api.js"
import { type FormField, formIn } from "./Fields.js"
import { licenseList, orgList, profileList, runList } from "./Lists.js"
import { listPage } from "./ListPage.js"
import { onboardingPage } from "./OnboardingPage.js"
import { licensePage, orgPage, profilePage, runPage } from "./RecordPages.js"
import { currentRoute } from "./Route.js"

/**
 * The onboarding console: a page per address (`#/`, `#/orgs`, `#/orgs/<id>`, ...), drawn from the
 * services' public REST APIs only, each at the port the server says it answers on.
 */

/** An element the console's page is served with, of the kind the code uses it as. */
const pageElement = <E extends HTMLElement>(id: string, kind: { new(): E; readonly prototype: E }): E => {
  const found = document.getElementById(id)
  if (!(found instanceof kind)) throw new Error(`the console's page has no ${kind.name} #${id}`)
  return found
}

const view = pageElement("view", HTMLElement)

/** Each menu entry: its list at `#/<section>`, a record of it at `#/<section>/<id>`. */
const sections: Record<string, { readonly list: (services: Services) => HTMLElement; readonly record: (services: Services, id: string) => HTMLElement }> = {
  orgs: { list: (services) => listPage(orgList, services), record: orgPage },
  profiles: { list: (services) => listPage(profileList, services), record: profilePage },
  licenses: { list: (services) => listPage(licenseList, services), record: licensePage },
  workflows: { list: (services) => listPage(runList, services), record: runPage }
}

const route = (services: Services, form: ReadonlyArray<FormField>) => {
  const { id, section } = currentRoute()
  const pages = Object.hasOwn(sections, section) ? sections[section] : undefined
  const page = pages === undefined ? onboardingPage(services, form) : id === undefined ? pages.list(services) : pages.record(services, id)
  view.replaceChildren(page)
  const current = pages === undefined ? "" : section
  for (const link of document.querySelectorAll<HTMLAnchorElement>("nav.menu a")) {
    if (link.getAttribute("href") === `#/${current}`) link.setAttribute("aria-current", "page")
    else link.removeAttribute("aria-current")
  }
  view.querySelector("h1")?.focus()
}

const tokenForm = pageElement("token-form", HTMLFormElement)
const tokenInput = pageElement("token", HTMLInputElement)
tokenInput.value = apiToken.get()
// Without authentication the form is folded (Console.ts); a token this tab uses stays in sight.
const tokenAccess = document.getElementById("token-access")
if (tokenAccess instanceof HTMLDetailsElement && tokenInput.value !== "") tokenAccess.open = true
tokenForm.addEventListener("submit", (event) => {
  event.preventDefault()
  apiToken.set(tokenInput.value.trim())
  window.dispatchEvent(new HashChangeEvent("hashchange"))
})

const start = async () => {
  const response = await fetch("/console/config.json")
  const config: unknown = await response.json()
  const services = servicesIn(config)
  if (services === undefined) throw new Error("/console/config.json does not give every service's origin")
  const form = formIn(config)
  if (form === undefined) throw new Error("/console/config.json does not give the onboarding form's fields")
  window.addEventListener("hashchange", () => route(services, form))
  route(services, form)
}

void start()
