import { apiToken, type Services } from "./Api.js"
import { licensePage, onboardingPage, orgPage, profilePage, workflowPage } from "./Pages.js"

/**
 * The onboarding console: a page per address (`#/`, `#/orgs/<id>`, ...), drawn from the services'
 * public REST APIs only, each at the port the server says it answers on.
 */

const view = document.getElementById("view")!

const route = (services: Services) => {
  const [, section = "", id] = location.hash.replace(/^#/, "").split("/").map(decodeURIComponent)
  const page = section === "orgs"
    ? orgPage(services, id)
    : section === "profiles"
    ? profilePage(services, id)
    : section === "licenses"
    ? licensePage(services, id)
    : section === "workflows"
    ? workflowPage(services, id)
    : onboardingPage(services)
  view.replaceChildren(page)
  for (const link of document.querySelectorAll<HTMLAnchorElement>("nav a")) {
    if (link.getAttribute("href") === `#/${section}`) link.setAttribute("aria-current", "page")
    else link.removeAttribute("aria-current")
  }
  view.querySelector("h1")?.focus()
}

const tokenForm = document.getElementById("token-form") as HTMLFormElement
const tokenInput = document.getElementById("token") as HTMLInputElement
tokenInput.value = apiToken.get()
tokenForm.addEventListener("submit", (event) => {
  event.preventDefault()
  apiToken.set(tokenInput.value.trim())
  window.dispatchEvent(new HashChangeEvent("hashchange"))
})

const start = async () => {
  const response = await fetch("/console/config.json")
  const { services } = await response.json() as { services: Services }
  window.addEventListener("hashchange", () => route(services))
  route(services)
}

void start()
