import { describe, expect, it } from "vitest"
import { randomUUID } from "node:crypto"
import type { Page } from "playwright-core"
import { browserAndServer, chromiumPath } from "./support/Browser.js"
import { onboard, shownResult } from "./support/OnboardingForm.js"

/**
 * The console onboards a customer once (src/console/WorkflowId.ts): its form always sends a
 * workflow id, so a click repeated after a success or after a lost answer leaves one run. Counted
 * through the services' own lists: the runs whose org carries the test's name.
 */

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const onboardingPath = "/workflow/workflows/onboarding"

/** Every row of a REST list, page after page. */
const allRows = async <A>(url: string, key: string): Promise<Array<A>> => {
  const rows: Array<A> = []
  let token = ""
  do {
    const reply = await fetch(`${url}?pageSize=100${token === "" ? "" : `&pageToken=${encodeURIComponent(token)}`}`)
    expect(reply.status).toBe(200)
    const page = await reply.json() as Record<string, unknown> & { nextPageToken?: string }
    rows.push(...(page[key] as Array<A> | undefined) ?? [])
    token = page.nextPageToken ?? ""
  } while (token !== "")
  return rows
}

/** The workflow ids of the runs that onboarded an org of this name. */
const runsOf = async (server: { org: string; workflow: string }, orgName: string) => {
  const orgs = await allRows<{ id: string; name: string }>(`${server.org}/orgs`, "orgs")
  const named = new Set(orgs.filter((org) => org.name === orgName).map((org) => org.id))
  const runs = await allRows<{ workflowId: string; orgId: string }>(`${server.workflow}${onboardingPath}`, "workflows")
  return runs.filter((run) => named.has(run.orgId)).map((run) => run.workflowId)
}

/** The answer to the form's next onboarding request, whatever it is. */
const nextOnboarding = (page: Page) =>
  page.waitForResponse((response) => new URL(response.url()).pathname === onboardingPath && response.request().method() === "POST", {
    timeout: 15_000
  })

const customer = () => ({
  org: `Once Co ${randomUUID().slice(0, 8)}`,
  person: "Ona Once",
  start: "2025-01-01T09:00",
  end: "2026-01-01T09:00"
})

describe.skipIf(chromiumPath === undefined)("the onboarding console onboards once, in Chromium", () => {
  const running = browserAndServer()

  it("a second click after the answer onboards no one again: the form starts afresh under a new id", async () => {
    const { browser, server } = running
    const page = await browser.newPage()
    await page.goto(`${server.workflow}/`)
    const idField = page.getByLabel("The caller's idempotency key (a UUID)")
    const sentId = await idField.inputValue()
    expect(sentId).toMatch(uuid)
    const values = customer()
    await onboard(page, values)
    expect((await shownResult(page))["Workflow run"]!.id).toBe(sentId)

    const [again] = await Promise.all([nextOnboarding(page), page.getByRole("button", { name: "Onboard" }).click()])
    expect(await runsOf(server, values.org)).toEqual([sentId])
    // The emptied form is refused, field by field, under an id of its own.
    expect(again.status()).toBe(400)
    await expect.poll(() => page.locator("#org-name-message").innerText(), { timeout: 10_000 }).toBe("The org's display name must not be blank")
    expect(await page.getByLabel("The org's display name").inputValue()).toBe("")
    const nextId = await idField.inputValue()
    expect(nextId).toMatch(uuid)
    expect(nextId).not.toBe(sentId)
    // That request was refused, so the next one, once edited, is another request with another id.
    await page.getByLabel("The org's display name").fill("Next Co")
    expect(await idField.inputValue()).not.toBe(nextId)
  }, 90_000)

  it("a click repeated after an answer lost on the way back onboards once, and shows the run", async () => {
    const { browser, server } = running
    const page = await browser.newPage()
    // The first onboarding request reaches the service, which answers; the browser is told the
    // connection was reset instead.
    const lost: Array<number> = []
    await page.route((url) => url.pathname === onboardingPath, async (route) => {
      if (route.request().method() !== "POST" || lost.length > 0) return route.continue()
      const answer = await route.fetch()
      lost.push(answer.status())
      return route.abort("connectionreset")
    })
    await page.goto(`${server.workflow}/`)
    const idField = page.getByLabel("The caller's idempotency key (a UUID)")
    const sentId = await idField.inputValue()
    const values = customer()
    await onboard(page, values)
    const alert = page.locator("main form [role=alert]")
    await expect.poll(() => alert.innerText(), { timeout: 15_000 }).toContain("Could not reach the workflow service")
    expect(lost).toEqual([200])
    expect(await runsOf(server, values.org)).toEqual([sentId])

    // The run may exist, so an edit keeps the id that finds it.
    await page.getByLabel("The person's full name").fill("Someone Else")
    await page.getByLabel("The person's full name").fill(values.person)
    expect(await idField.inputValue()).toBe(sentId)

    await page.getByRole("button", { name: "Onboard" }).click()
    const shown = await shownResult(page)
    expect(shown["Workflow run"]!.id).toBe(sentId)
    expect(shown["Organization"]!.text).toBe(values.org)
    expect(await runsOf(server, values.org)).toEqual([sentId])
  }, 90_000)
})
