import { describe, expect, it } from "vitest"
import type { Page } from "playwright-core"
import { browserAndServer, chromiumPath } from "./support/Browser.js"
import { layoutFaultsAtEachWidth, screenshotConsole } from "./support/ConsolePages.js"
import { onboard } from "./support/OnboardingForm.js"

/**
 * What the console shows of a refusal and of an address it cannot open, and how its first screen
 * is laid out: each rule under its field from the refusal's violations (details, AIP-193), never
 * from its message; a bad id in the address in a sentence; the date pair's inputs level whatever
 * is said under one; the API-token form folded when the server has no token.
 */

const alert = (page: Page) => page.locator("main [role=alert]").first()
const message = (page: Page, id: string) => page.locator(`#${id}-message`)

/** The top of each input, in px from the page's top. */
const inputTops = (page: Page, ids: ReadonlyArray<string>) =>
  Promise.all(ids.map(async (id) => Math.round((await page.locator(`#${id}`).boundingBox())!.y)))

describe.skipIf(chromiumPath === undefined)("the console's refusals and first screen, in Chromium", () => {
  const running = browserAndServer()

  it("one run so far: 'The newest run'; the API-token form folded, without authentication", async () => {
    const { browser, server } = running
    const page = await browser.newPage({ viewport: { width: 375, height: 812 } })
    await page.goto(`${server.workflow}/`)
    await onboard(page, { org: "Only One", person: "Uno", start: "2025-01-01T09:00", end: "2026-01-01T09:00" })
    const caption = page.locator("main table.rows caption")
    await expect.poll(() => caption.innerText(), { timeout: 15_000 }).toBe("The newest run")
    expect(await page.locator("#token-access").evaluate((details: any) => details.open)).toBe(false)
    expect(await page.getByLabel("API token").isVisible()).toBe(false)
    // The header is the brand, the menu and the folded form's summary: the form's heading is on the first screen's upper half.
    expect((await page.locator("h1").boundingBox())!.y).toBeLessThan(200)
    await page.evaluate("window.scrollTo(0, 0)")
    await screenshotConsole(page, "onboard-one-run")
    // Opened, it takes a token as before.
    await page.locator("#token-access summary").click()
    expect(await page.getByLabel("API token").isVisible()).toBe(true)
    await page.close()
  }, 60_000)

  it("the server's violations go under their fields; the date inputs stay level with a message under one", async () => {
    const { browser, server } = running
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    await page.goto(`${server.workflow}/`)
    await onboard(page, { org: "Backwards Ltd", person: "Eve", start: "2025-06-01T09:00", end: "2025-01-01T09:00", workflowId: "not-a-uuid" })
    await expect.poll(() => message(page, "license-end").innerText(), { timeout: 10_000 })
      .toBe("When the license ends must be after when the license starts")
    expect(await message(page, "workflow-options-workflow-id").innerText())
      .toBe("The caller's idempotency key (a UUID) must be a UUID (8-4-4-4-12 hex digits)")
    const [start, end] = await inputTops(page, ["license-start", "license-end"])
    expect(end).toBe(start)
    expect(await layoutFaultsAtEachWidth(page)).toEqual({})
    await page.setViewportSize({ width: 1280, height: 800 })
    await page.locator("#license-start").scrollIntoViewIfNeeded()
    await screenshotConsole(page, "onboard-refused-dates")
    await page.close()
  }, 60_000)

  it("reads a REST refusal's details (AIP-193), not its message: unplaced rules in the form's general place", async () => {
    const { browser, server } = running
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    await page.route("**/workflow/workflows/onboarding", (route) =>
      route.request().method() === "POST"
        ? route.fulfill({
          status: 400,
          contentType: "application/json",
          body: JSON.stringify({
            code: 3,
            message: "org.name: a message the console must not parse",
            details: [{
              "@type": "type.googleapis.com/google.rpc.BadRequest",
              fieldViolations: [
                { field: "profile.fullName", description: "at most 200 characters" },
                { field: "license.start", description: "must be before license.end" },
                { description: "the request as a whole is refused" },
                { field: "profile.nickname", description: "is not a known field" }
              ]
            }]
          })
        })
        : route.continue())
    await page.goto(`${server.workflow}/`)
    await onboard(page, { org: "Routed", person: "Ro Uted", start: "2025-01-01T09:00", end: "2026-01-01T09:00" })
    await expect.poll(() => message(page, "profile-full-name").innerText(), { timeout: 10_000 })
      .toBe("The person's full name at most 200 characters")
    expect(await message(page, "license-start").innerText()).toBe("When the license starts must be before when the license ends")
    expect(await message(page, "org-name").innerText()).toBe("")
    expect(await page.getByLabel("The org's display name").getAttribute("aria-invalid")).toBe(null)
    expect(await page.getByLabel("The person's full name").getAttribute("aria-invalid")).toBe("true")
    expect(await page.evaluate(() => (globalThis as any).document.activeElement.id)).toBe("profile-full-name")
    expect(await page.locator("form [role=alert]").innerText())
      .toBe("the request as a whole is refused; profile.nickname: is not a known field")
    expect(await page.locator("main").innerText()).not.toContain("must not parse")
    await screenshotConsole(page, "onboard-refused-routed")
    await page.close()
  }, 60_000)

  it("a bad id or filter in the address is said in a sentence, with the way to the list", async () => {
    const { browser, server } = running
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    await page.goto(`${server.workflow}/#/orgs/not-a-uuid`)
    await expect.poll(() => alert(page).innerText(), { timeout: 10_000 }).toBe(
      "No organization can have the id “not-a-uuid”: an id must be a UUID (8-4-4-4-12 hex digits). Check the address, or find the organization in the list."
    )
    expect(await alert(page).getByRole("link", { name: "the list" }).getAttribute("href")).toBe("#/orgs")
    await screenshotConsole(page, "org-bad-id")
    await page.goto(`${server.workflow}/#/workflows/nope`)
    await expect.poll(() => alert(page).innerText(), { timeout: 10_000 }).toContain("No workflow run can have the id “nope”")
    await page.goto(`${server.workflow}/#/profiles?org=not-a-uuid`)
    await expect.poll(() => page.locator("main .list [role=alert]").innerText(), { timeout: 10_000 }).toBe(
      "This address holds a filter or page the service cannot read: the value must be a UUID (8-4-4-4-12 hex digits). Show all profiles."
    )
    // A filter the service cannot read is not described as if it narrowed the list.
    expect(await page.locator("main .narrowed").count()).toBe(0)
    expect(await page.locator("main").innerText()).not.toContain("id: must")
    await screenshotConsole(page, "profiles-bad-filter")
    await page.close()
  }, 60_000)
})
