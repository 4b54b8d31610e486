import { describe, expect, it } from "vitest"
import { randomUUID } from "node:crypto"
import type { Page } from "playwright-core"
import { browserAndServer, chromiumPath, offPortRequests } from "./support/Browser.js"
import { formInputs } from "../../src/console/Fields.js"
import { OnboardingRequest } from "../../src/domain/Onboarding.js"
import { formFields } from "../../src/transports/pages/OnboardingForm.js"
import { onboard, shownResult } from "./support/OnboardingForm.js"
import { freePort, startAllInOne, stopProcess } from "./support/Processes.js"

/**
 * The onboarding console as staff use it: in headless Chromium, against the all-in-one process,
 * talking to the four services' ports through their REST APIs. The lists are console-lists.test.ts.
 */

const start = (env: Record<string, string> = {}) => startAllInOne({ ACCESS_LOG: "off", ...env })

/** The text under a record page's term, once the record is drawn. */
const recordValue = async (page: Page, term: string) => {
  const value = page.locator(`main dl dt:text-is("${term}") + dd`)
  await value.waitFor({ timeout: 10_000 })
  return value
}

const alert = (page: Page) => page.locator("main [role=alert]").first()

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const onboardOverRest = async (workflow: string, body: { org: string; start: string; end: string }) => {
  const reply = await fetch(`${workflow}/workflow/workflows/onboarding`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ org: { name: body.org }, profile: { fullName: "Zoe Zone" }, license: { start: body.start, end: body.end } })
  })
  return await reply.json() as { workflowId: string; orgId: string; profileId: string; licenseId: string }
}

describe.skipIf(chromiumPath === undefined)("the onboarding console, in Chromium", () => {
  const running = browserAndServer()

  it("onboards through the form; the result and each record page name what they link to", async () => {
    const { browser, server } = running
    const page = await browser.newPage()
    const elsewhere = offPortRequests(page, "http://127.0.0.1:")
    const reply = await page.goto(`${server.workflow}/`)
    expect(reply?.headers()["content-security-policy"]).toContain("script-src 'self'")
    const org = `Console Corp ${randomUUID().slice(0, 8)}`
    await onboard(page, { org, person: "Ada Console", start: "2025-01-01T09:00", end: "2026-01-01T09:00" })
    const shown = await shownResult(page)
    for (const { id } of Object.values(shown)) expect(id).toMatch(uuid)
    expect(shown["Workflow run"]!.text).toBe(shown["Workflow run"]!.id)
    expect(shown["Organization"]!.text).toBe(org)
    expect(shown["Profile"]!.text).toBe("Ada Console")

    // Each link opens its record, read from its own service's port, naming what it refers to.
    await page.locator("#result").getByRole("link", { name: org }).click()
    expect(await (await recordValue(page, "Name")).innerText()).toBe(org)
    expect(await page.getByRole("link", { name: "Profiles in this organization" }).getAttribute("href"))
      .toBe(`#/profiles?org=${shown["Organization"]!.id}`)
    await page.goBack()
    await page.locator("#result").getByRole("link", { name: "Ada Console" }).click()
    const profileOrg = (await recordValue(page, "Organization")).getByRole("link", { name: org })
    await profileOrg.waitFor({ timeout: 10_000 })
    expect(await profileOrg.getAttribute("href")).toBe(`#/orgs/${shown["Organization"]!.id}`)
    await page.goBack()
    await page.locator("#result dt:text-is('License') + dd a").click()
    const holder = (await recordValue(page, "Holder")).getByRole("link", { name: "Ada Console" })
    expect(await holder.getAttribute("href")).toBe(`#/profiles/${shown["Profile"]!.id}`)
    await page.goBack()
    await page.locator("#result").getByRole("link", { name: shown["Workflow run"]!.id }).click()
    expect(await (await recordValue(page, "Status")).innerText()).toBe("completed")
    for (const [term, name, section] of [["Organization", org, "orgs"], ["Profile", "Ada Console", "profiles"]] as const) {
      const named = (await recordValue(page, term)).getByRole("link", { name })
      expect(await named.getAttribute("href")).toBe(`#/${section}/${shown[term]!.id}`)
    }
    expect(await (await recordValue(page, "License")).locator("a").getAttribute("href")).toBe(`#/licenses/${shown["License"]!.id}`)

    // The run is the newest of the recent runs, under its org's name.
    await page.goto(`${server.workflow}/#/`)
    const firstRun = page.locator("table tbody tr").first()
    await expect.poll(() => firstRun.innerText(), { timeout: 10_000 }).toContain(org)
    expect(elsewhere.filter((url) => !server.ports.some((port) => url.startsWith(`http://127.0.0.1:${port}/`)))).toEqual([])
  }, 90_000)

  it("shows times in the browser's language and zone, the exact UTC value on hover", async () => {
    const { browser, server } = running
    const made = await onboardOverRest(server.workflow, { org: "Zoned", start: "2025-01-01T09:00:00Z", end: "2026-07-01T09:30:00Z" })
    const shownIn = async (locale: string, timezoneId: string) => {
      const context = await browser.newContext({ locale, timezoneId })
      try {
        const page = await context.newPage()
        await page.goto(`${server.workflow}/#/licenses/${made.licenseId}`)
        const times = []
        for (const term of ["Starts", "Ends"]) {
          const time = (await recordValue(page, term)).locator("time")
          times.push({ text: await time.innerText(), title: await time.getAttribute("title"), datetime: await time.getAttribute("datetime") })
        }
        return times
      } finally {
        await context.close()
      }
    }
    expect(await shownIn("de-DE", "Europe/Berlin")).toEqual([
      { text: "01.01.2025, 10:00", title: "2025-01-01T09:00:00Z", datetime: "2025-01-01T09:00:00Z" },
      { text: "01.07.2026, 11:30", title: "2026-07-01T09:30:00Z", datetime: "2026-07-01T09:30:00Z" }
    ])
    expect((await shownIn("en-US", "America/New_York"))[0]).toEqual({
      text: "Jan 1, 2025, 4:00 AM",
      title: "2025-01-01T09:00:00Z",
      datetime: "2025-01-01T09:00:00Z"
    })
  }, 60_000)

  it("asks for each field of the workflow's request, labelled from the field's description", async () => {
    const { browser, server } = running
    const page = await browser.newPage()
    await page.goto(`${server.workflow}/`)
    const labels = page.locator("form[aria-labelledby=onboard-heading] label")
    await labels.first().waitFor({ timeout: 10_000 })
    expect(await labels.allInnerTexts()).toEqual(formInputs(formFields(OnboardingRequest)).map((input) => input.label))
    await page.close()
  }, 60_000)

  it("puts each refusal under its field, named by the field's label, and focuses the first in the form", async () => {
    const { browser, server } = running
    const page = await browser.newPage()
    await page.goto(`${server.workflow}/`)
    await page.getByRole("button", { name: "Onboard" }).click()
    const message = (id: string) => page.locator(`#${id}-message`)
    await expect.poll(() => message("org-name").innerText(), { timeout: 10_000 }).toBe("The org's display name must not be blank")
    expect(await message("profile-full-name").innerText()).toBe("The person's full name must not be blank")
    expect(await message("license-start").innerText()).toBe("When the license starts is missing")
    expect(await message("license-end").innerText()).toBe("When the license ends is missing")
    expect(await page.evaluate(() => (globalThis as any).document.activeElement.id)).toBe("org-name")
    expect(await page.getByLabel("The org's display name").getAttribute("aria-describedby")).toContain("org-name-message")

    await onboard(page, { org: "Backwards Ltd", person: "Eve", start: "2025-06-01T09:00", end: "2025-01-01T09:00", workflowId: "not-a-uuid" })
    await expect.poll(() => message("license-end").innerText(), { timeout: 10_000 }).toBe("When the license ends must be after when the license starts")
    expect(await message("workflow-options-workflow-id").innerText()).toBe("The caller's idempotency key (a UUID) must be a UUID (8-4-4-4-12 hex digits)")
    expect(await message("org-name").innerText()).toBe("")
    expect(await page.getByLabel("When the license ends").getAttribute("aria-invalid")).toBe("true")
    expect(await page.getByLabel("The org's display name").getAttribute("aria-invalid")).toBe(null)
    // The first invalid field in the form's order, though the server named the workflow id first.
    expect(await page.evaluate(() => (globalThis as any).document.activeElement.id)).toBe("license-end")
    expect(await page.locator("#result").innerText()).toBe("")
  }, 60_000)

  it("links the existing run when a workflow id already holds other content", async () => {
    const { browser, server } = running
    const page = await browser.newPage()
    await page.goto(`${server.workflow}/`)
    const workflowId = randomUUID()
    await onboard(page, { org: "First Co", person: "Una", start: "2025-01-01T09:00", end: "2026-01-01T09:00", workflowId })
    expect((await shownResult(page))["Workflow run"]!.id).toBe(workflowId)
    await onboard(page, { org: "Second Co", person: "Una", start: "2025-01-01T09:00", end: "2026-01-01T09:00", workflowId })
    const message = page.locator("#workflow-options-workflow-id-message")
    await expect.poll(() => message.innerText(), { timeout: 10_000 }).toContain("A run with this id already exists with different content.")
    expect(await page.evaluate(() => (globalThis as any).document.activeElement.id)).toBe("workflow-options-workflow-id")
    await message.getByRole("link", { name: "Open the existing run" }).click()
    await expect.poll(() => page.url()).toContain(`#/workflows/${workflowId}`)
    await (await recordValue(page, "Organization")).getByRole("link", { name: "First Co" }).waitFor({ timeout: 10_000 })
  }, 60_000)

  it("says a record that does not exist is not found, and opens a record by its id", async () => {
    const { browser, server } = running
    const page = await browser.newPage()
    await page.goto(`${server.workflow}/#/workflows/${randomUUID()}`)
    await expect.poll(() => alert(page).innerText(), { timeout: 10_000 }).toBe("Workflow run not found.")
    // The id form works from the keyboard: type an id, press Enter.
    const orgId = randomUUID()
    await page.goto(`${server.workflow}/#/orgs`)
    await page.getByLabel("Organization id").fill(orgId)
    await page.keyboard.press("Enter")
    await expect.poll(() => page.url()).toContain(`#/orgs/${orgId}`)
    await expect.poll(() => alert(page).innerText(), { timeout: 10_000 }).toBe("Organization not found.")
  }, 60_000)

  it("with API_TOKEN set, tells a missing token from a wrong one, then works with the right one", async () => {
    const { browser } = running
    const token = "console-token"
    const guarded = await start({ API_TOKEN: token })
    try {
      const page = await browser.newPage()
      await page.goto(`${guarded.workflow}/#/orgs`)
      await expect.poll(() => alert(page).innerText(), { timeout: 10_000 })
        .toBe("This server needs an API token: enter it at the top of the page.")
      // A token no header can carry is refused by the field itself, rather than failing the call
      // as if the service were out of reach.
      await page.getByLabel("API token").fill("tökén")
      await page.getByRole("button", { name: "Use" }).click()
      expect(await page.evaluate("document.getElementById('token').validity.patternMismatch")).toBe(true)
      expect(await page.evaluate("sessionStorage.getItem('onboarding-api-token')")).toBe(null)
      await page.getByLabel("API token").fill("not-the-token")
      await page.getByRole("button", { name: "Use" }).click()
      await expect.poll(() => alert(page).innerText(), { timeout: 10_000 })
        .toBe("The API token entered is not the one this server accepts: check it, and enter it again at the top of the page.")
      await page.getByLabel("API token").fill(token)
      await page.getByRole("button", { name: "Use" }).click()
      await expect.poll(() => page.locator("main .list").innerText(), { timeout: 10_000 }).toBe("No organizations yet.")
      await page.goto(`${guarded.workflow}/#/`)
      await onboard(page, { org: "Guarded Inc", person: "Tok En", start: "2025-01-01T09:00", end: "2026-01-01T09:00" })
      await shownResult(page)
      await page.locator("#result").getByRole("link", { name: "Guarded Inc" }).click()
      expect(await (await recordValue(page, "Name")).innerText()).toBe("Guarded Inc")
    } finally {
      await stopProcess(guarded.running)
    }
  }, 90_000)

  it("when another service's port cannot be reached, names the settings to check", async () => {
    const { browser } = running
    const nowhere = `http://127.0.0.1:${await freePort()}`
    const split = await start({ ORG_SERVICE_URL: nowhere })
    try {
      const page = await browser.newPage()
      await page.goto(`${split.workflow}/#/orgs`)
      await expect.poll(() => alert(page).innerText(), { timeout: 10_000 }).toBe(
        `Could not reach the org service at ${nowhere}. Check that CORS_ORIGINS on the org service includes this page's origin ` +
          `(${split.workflow}), that the org service is running, and that ORG_SERVICE_URL on the workflow service is the ` +
          `address browsers reach it at.`
      )
      // A record of another service still shows, with the org's id and why its name is missing.
      const made = await onboardOverRest(split.workflow, { org: "Far Away", start: "2025-01-01T09:00:00Z", end: "2026-01-01T09:00:00Z" })
      await page.goto(`${split.workflow}/#/profiles/${made.profileId}`)
      const organization = await recordValue(page, "Organization")
      await expect.poll(() => organization.innerText(), { timeout: 10_000 }).toContain(made.orgId)
      expect(await organization.innerText()).toContain(`name not shown: Could not reach the org service at ${nowhere}.`)
    } finally {
      await stopProcess(split.running)
    }
  }, 90_000)
})
