import { describe, expect, it } from "vitest"
import { randomUUID } from "node:crypto"
import type { Page } from "playwright-core"
import { browserAndServer, chromiumPath, offPortRequests, screenshotAtBothWidths } from "./support/Browser.js"
import { startAllInOne, stopProcess } from "./support/Servers.js"

/**
 * The onboarding console as staff use it: in headless Chromium, against the all-in-one process,
 * talking to the four services' ports through their REST APIs.
 */

const start = (env: Record<string, string> = {}) => startAllInOne({ ACCESS_LOG: "off", ...env })

/** Fills the form and submits it; answers the ids the result shows, by label. */
const onboard = async (page: Page, values: { org: string; person: string; start: string; end: string; workflowId?: string }) => {
  await page.getByLabel("Organization name").fill(values.org)
  await page.getByLabel("Person's full name").fill(values.person)
  await page.getByLabel("License starts").fill(values.start)
  await page.getByLabel("License ends").fill(values.end)
  if (values.workflowId !== undefined) await page.getByLabel(/^Workflow id/).fill(values.workflowId)
  await page.getByRole("button", { name: "Onboard" }).click()
}

const shownIds = async (page: Page) => {
  const result = page.locator("#result dl")
  await result.waitFor({ timeout: 15_000 })
  const ids: Record<string, string> = {}
  for (const term of ["Workflow run", "Organization", "Profile", "License"]) {
    ids[term] = (await result.locator(`dt:text-is("${term}") + dd`).innerText()).trim()
  }
  return ids
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

describe.skipIf(chromiumPath === undefined)("the onboarding console, in Chromium", () => {
  const running = browserAndServer()

  it("onboards a customer through the form, links each record, and lists the run", async () => {
    const { browser, server } = running
    const page = await browser.newPage()
    const elsewhere = offPortRequests(page, "http://127.0.0.1:")
    const reply = await page.goto(`${server.workflow}/`)
    expect(reply?.headers()["content-security-policy"]).toContain("script-src 'self'")
    await screenshotAtBothWidths(page, "console-form")
    const org = `Console Corp ${randomUUID().slice(0, 8)}`
    await onboard(page, { org, person: "Ada Console", start: "2025-01-01T09:00", end: "2026-01-01T09:00" })
    const ids = await shownIds(page)
    for (const id of Object.values(ids)) expect(id).toMatch(uuid)
    await screenshotAtBothWidths(page, "console-onboarded")

    // Each link opens its record, read from its own service's port.
    await page.locator("#result").getByRole("link", { name: ids["Organization"]! }).click()
    await expect.poll(() => page.locator("main dl").innerText(), { timeout: 10_000 }).toContain(org)
    await screenshotAtBothWidths(page, "console-org")
    await page.goBack()
    await page.locator("#result").getByRole("link", { name: ids["Profile"]! }).click()
    await expect.poll(() => page.locator("main dl").innerText(), { timeout: 10_000 }).toContain("Ada Console")
    expect(await page.locator("main dl").innerText()).toContain(ids["Organization"]!)
    await screenshotAtBothWidths(page, "console-profile")
    await page.goBack()
    await page.locator("#result").getByRole("link", { name: ids["License"]! }).click()
    await expect.poll(() => page.locator("main dl").innerText(), { timeout: 10_000 }).toContain("2025-01-01")
    expect(await page.locator("main dl").innerText()).toContain(ids["Profile"]!)
    await screenshotAtBothWidths(page, "console-license")
    await page.goBack()
    await page.locator("#result").getByRole("link", { name: ids["Workflow run"]! }).click()
    await expect.poll(() => page.locator("main dl").innerText(), { timeout: 10_000 }).toContain("completed")
    await screenshotAtBothWidths(page, "console-run")

    // The run is the newest in the list of recent runs.
    await page.goto(`${server.workflow}/#/`)
    const firstRun = page.locator("table tbody tr").first()
    await expect.poll(() => firstRun.innerText(), { timeout: 10_000 }).toContain(ids["Workflow run"]!)
    expect(elsewhere.filter((url) => !server.ports.some((port) => url.startsWith(`http://127.0.0.1:${port}/`)))).toEqual([])
  }, 90_000)

  it("pages through the recent runs, newest first, and back to the newest", async () => {
    const { browser, server } = running
    const made: Array<string> = []
    for (let i = 0; i < 12; i++) {
      const reply = await fetch(`${server.workflow}/workflow/workflows/onboarding`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          org: { name: `Paged ${i}` },
          profile: { fullName: "Page Person" },
          license: { start: "2025-01-01T00:00:00Z", end: "2026-01-01T00:00:00Z" }
        })
      })
      made.push(((await reply.json()) as { workflowId: string }).workflowId)
    }
    const page = await browser.newPage()
    await page.goto(`${server.workflow}/`)
    const rows = page.locator("table tbody tr")
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(10)
    expect(await rows.first().innerText()).toContain(made.at(-1)!)
    await page.getByRole("button", { name: "Older runs" }).click()
    await expect.poll(() => rows.first().innerText(), { timeout: 10_000 }).toContain(made.at(-11)!)
    await screenshotAtBothWidths(page, "console-runs")
    await page.getByRole("button", { name: "Newest" }).click()
    await expect.poll(() => rows.first().innerText(), { timeout: 10_000 }).toContain(made.at(-1)!)
  }, 60_000)

  it("shows a refusal next to the field it names, and nothing is created", async () => {
    const { browser, server } = running
    const page = await browser.newPage()
    await page.goto(`${server.workflow}/`)
    await onboard(page, { org: "Backwards Ltd", person: "Eve", start: "2025-06-01T09:00", end: "2025-01-01T09:00" })
    const message = page.locator("#license-end-message")
    await expect.poll(() => message.innerText(), { timeout: 10_000 }).toBe("must be after license.start")
    expect(await page.getByLabel("License ends").getAttribute("aria-invalid")).toBe("true")
    expect(await page.locator("#result").innerText()).toBe("")
    await screenshotAtBothWidths(page, "console-refused")
  }, 60_000)

  it("says a run that does not exist is not found", async () => {
    const { browser, server } = running
    const page = await browser.newPage()
    await page.goto(`${server.workflow}/#/workflows/${randomUUID()}`)
    await expect.poll(() => page.locator("main [role=alert]").innerText(), { timeout: 10_000 }).toBe("workflow run not found")
    // The lookup form works from the keyboard: type an id, press Enter.
    const orgId = randomUUID()
    await page.goto(`${server.workflow}/#/orgs`)
    await page.getByLabel("Org id").fill(orgId)
    await page.keyboard.press("Enter")
    await expect.poll(() => page.url()).toContain(`#/orgs/${orgId}`)
    await expect.poll(() => page.locator("main [role=alert]").innerText(), { timeout: 10_000 }).toBe("org not found")
  }, 60_000)

  it("with API_TOKEN set, asks for the token, then onboards with it", async () => {
    const { browser } = running
    const token = "console-token"
    const guarded = await start({ API_TOKEN: token })
    try {
      const page = await browser.newPage()
      await page.goto(`${guarded.workflow}/`)
      await onboard(page, { org: "Guarded Inc", person: "Tok En", start: "2025-01-01T09:00", end: "2026-01-01T09:00" })
      await expect.poll(() => page.locator("main [role=alert]").first().innerText(), { timeout: 10_000 })
        .toContain("needs an API token")
      await page.getByLabel("API token (if the server has one; kept in this tab only)").fill(token)
      await page.getByRole("button", { name: "Use" }).click()
      await onboard(page, { org: "Guarded Inc", person: "Tok En", start: "2025-01-01T09:00", end: "2026-01-01T09:00" })
      const ids = await shownIds(page)
      await page.locator("#result").getByRole("link", { name: ids["Organization"]! }).click()
      await expect.poll(() => page.locator("main dl").innerText(), { timeout: 10_000 }).toContain("Guarded Inc")
    } finally {
      await stopProcess(guarded.running)
    }
  }, 90_000)
})
