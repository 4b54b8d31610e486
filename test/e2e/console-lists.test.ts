import { beforeAll, describe, expect, it } from "vitest"
import { randomUUID } from "node:crypto"
import type { Page } from "playwright-core"
import { browserAndServer, chromiumPath } from "./support/Browser.js"
import { layoutFaultsAtEachWidth, screenshotConsole } from "./support/ConsolePages.js"

/**
 * The console's four lists as staff page through them (in headless Chromium, against the
 * all-in-one process): next and previous pages, the position kept in the address through a
 * reload and the back button, filters, rows linking to records; and every page's layout from
 * 320 to 1920 px, with its screenshots at 375 and 1280 px in reports/console.
 */

const rows = (page: Page) => page.locator("table.rows tbody tr")

/** The rows' text once the page has drawn `count` of them. */
const rowTexts = async (page: Page, count: number) => {
  await expect.poll(() => rows(page).count(), { timeout: 15_000 }).toBe(count)
  return rows(page).allInnerTexts()
}

/**
 * Until the table shows `count` rows, row `index` holding `text`: a page of as many rows as the
 * one it replaces has the right count before its rows are in place.
 */
const rowShowing = async (page: Page, count: number, index: number, text: string) =>
  expect.poll(async () => {
    const texts = await rows(page).allInnerTexts()
    return texts.length === count ? texts[index] ?? "" : ""
  }, { timeout: 15_000 }).toContain(text)

const put = async (url: string, body: unknown) => {
  const reply = await fetch(url, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
  expect(reply.status).toBe(200)
}

describe.skipIf(chromiumPath === undefined)("the console's lists, in Chromium", () => {
  const running = browserAndServer()
  const seeded = {
    runs: [] as Array<{ workflowId: string; orgId: string; profileId: string; licenseId: string }>,
    /** An org with 25 profiles (three pages), and a person with 12 licenses (two). */
    crowdedOrg: { id: randomUUID(), name: "Crowded Org" },
    busyPerson: ""
  }

  beforeAll(async () => {
    const { server } = running
    const [, profilePort, licensePort] = server.ports
    for (let i = 0; i < 12; i++) {
      const reply = await fetch(`${server.workflow}/workflow/workflows/onboarding`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          org: { name: `Listed ${i}` },
          profile: { fullName: `Person ${i}` },
          license: { start: "2025-01-01T09:00:00Z", end: "2026-01-01T09:00:00Z" }
        })
      })
      seeded.runs.push(await reply.json() as (typeof seeded.runs)[number])
    }
    await put(`${server.org}/orgs/${seeded.crowdedOrg.id}`, { name: seeded.crowdedOrg.name })
    for (let i = 0; i < 25; i++) {
      await put(`http://127.0.0.1:${profilePort}/profiles/${randomUUID()}`, { fullName: `Member ${i}`, orgId: seeded.crowdedOrg.id })
    }
    seeded.busyPerson = seeded.runs[0]!.profileId
    for (let i = 0; i < 11; i++) {
      await put(`http://127.0.0.1:${licensePort}/licenses/${randomUUID()}`, {
        userId: seeded.busyPerson,
        start: `20${30 + i}-03-01T00:00:00Z`,
        end: `20${31 + i}-03-01T00:00:00Z`
      })
    }
  }, 60_000)

  it("organizations: next and previous pages, kept in the address through a reload and the back button", async () => {
    const { browser, server } = running
    const page = await browser.newPage()
    // Newest first: the crowded org was made last, then Listed 11 ... Listed 0.
    await page.goto(`${server.workflow}/#/orgs`)
    const first = await rowTexts(page, 10)
    expect(first[0]).toContain("Crowded Org")
    expect(first[1]).toContain("Listed 11")
    expect(await page.getByRole("link", { name: "← Previous page" }).count()).toBe(0)
    expect(await page.locator("caption").innerText()).toBe("Organizations 1–10, newest first")
    expect(await rows(page).first().getByRole("link", { name: "Profiles" }).getAttribute("href")).toBe(`#/profiles?org=${seeded.crowdedOrg.id}`)

    await page.getByRole("link", { name: "Next page →" }).click()
    await expect.poll(() => page.url()).toMatch(/#\/orgs\?page=/)
    expect(await rowTexts(page, 3)).toEqual([expect.stringContaining("Listed 2"), expect.stringContaining("Listed 1"), expect.stringContaining("Listed 0")])
    expect(await page.getByRole("link", { name: "Next page →" }).count()).toBe(0)
    expect(await page.locator(".paging-at").innerText()).toBe("Page 2")

    await page.reload()
    expect((await rowTexts(page, 3))[2]).toContain("Listed 0")
    expect(await page.locator("caption").innerText()).toBe("Organizations 11–13, newest first")

    await page.getByRole("link", { name: "← Previous page" }).click()
    await rowShowing(page, 10, 1, "Listed 11")
    expect(page.url()).toMatch(/#\/orgs$/)
    await page.goBack()
    expect((await rowTexts(page, 3))[0]).toContain("Listed 2")
    await page.goBack()
    await rowShowing(page, 10, 1, "Listed 11")

    // A row opens its record.
    await page.getByRole("link", { name: "Listed 11" }).click()
    await expect.poll(() => page.url()).toContain(`#/orgs/${seeded.runs[11]!.orgId}`)
    await expect.poll(() => page.locator("main dl").innerText(), { timeout: 10_000 }).toContain("Listed 11")
  }, 60_000)

  it("profiles of an org: chosen by its id, three pages forwards and back again, the org named", async () => {
    const { browser, server } = running
    const page = await browser.newPage()
    await page.goto(`${server.workflow}/#/profiles`)
    await rowTexts(page, 10)
    await page.getByLabel("Organization id").fill(seeded.crowdedOrg.id)
    await page.getByRole("button", { name: "Show" }).click()
    await expect.poll(() => page.url()).toContain(`#/profiles?org=${seeded.crowdedOrg.id}`)
    await expect.poll(() => page.locator(".narrowed").innerText(), { timeout: 10_000 }).toContain("Only the profiles of Crowded Org.")
    const pageOne = await rowTexts(page, 10)
    expect(pageOne[0]).toContain("Member 24")
    expect(pageOne.every((row) => row.includes("Crowded Org"))).toBe(true)

    await page.getByRole("link", { name: "Next page →" }).click()
    await rowShowing(page, 10, 0, "Member 14")
    await page.getByRole("link", { name: "Next page →" }).click()
    expect(await rowTexts(page, 5)).toEqual([4, 3, 2, 1, 0].map((i) => expect.stringContaining(`Member ${i}`)))
    expect(page.url()).toContain(`org=${seeded.crowdedOrg.id}`)
    await page.reload()
    await rowTexts(page, 5)
    // Each previous page from the stack in the address, the filter kept.
    await page.getByRole("link", { name: "← Previous page" }).click()
    await rowShowing(page, 10, 0, "Member 14")
    await page.getByRole("link", { name: "← Previous page" }).click()
    await rowShowing(page, 10, 0, "Member 24")
    expect(page.url()).toMatch(new RegExp(`#/profiles\\?org=${seeded.crowdedOrg.id}$`))

    // The organization column links the org by its name.
    await rows(page).first().getByRole("link", { name: "Crowded Org" }).click()
    await expect.poll(() => page.url()).toContain(`#/orgs/${seeded.crowdedOrg.id}`)
  }, 60_000)

  it("licenses of a user and workflow runs by status: both pages, rows named and linked", async () => {
    const { browser, server } = running
    const page = await browser.newPage()
    await page.goto(`${server.workflow}/#/licenses?user=${seeded.busyPerson}`)
    await expect.poll(() => page.locator(".narrowed").innerText(), { timeout: 10_000 }).toContain("Only the licenses of Person 0.")
    const licenses = await rowTexts(page, 10)
    expect(licenses.every((row) => row.includes("Person 0"))).toBe(true)
    await page.getByRole("link", { name: "Next page →" }).click()
    await rowTexts(page, 2)
    await page.getByRole("link", { name: "← Previous page" }).click()
    await rowTexts(page, 10)

    await page.goto(`${server.workflow}/#/workflows`)
    await page.getByLabel("Status").selectOption("completed")
    await page.getByRole("button", { name: "Show" }).click()
    await expect.poll(() => page.url()).toContain("#/workflows?status=completed")
    // The address changes before the table does: until the runs are drawn, the rows counted may
    // be the previous list's ten (a loaded run once read them just as they were replaced).
    await expect.poll(async () => (await rows(page).allInnerTexts())[0] ?? "", { timeout: 15_000 }).toContain("Listed 11")
    const runs = await rowTexts(page, 10)
    expect(runs[0]).toContain("Listed 11")
    expect(runs[0]).toContain("completed")
    await page.getByRole("link", { name: "Next page →" }).click()
    expect(await rowTexts(page, 2)).toEqual([expect.stringContaining("Listed 1"), expect.stringContaining("Listed 0")])
    await page.reload()
    await rowTexts(page, 2)
    expect(page.url()).toContain("status=completed")
    await page.getByRole("link", { name: "← Previous page" }).click()
    await rowTexts(page, 10)
    // The run's row links the run by its creation time.
    await rows(page).first().locator("td").first().getByRole("link").click()
    await expect.poll(() => page.url()).toContain(`#/workflows/${seeded.runs[11]!.workflowId}`)
  }, 60_000)

  it("every page, from 320 to 1920 px: no word broken, no sideways scroll; screenshots at 375 and 1280 px", async () => {
    const { browser, server } = running
    const page = await browser.newPage()
    const run = seeded.runs[11]!
    const pages: ReadonlyArray<readonly [string, string, string]> = [
      ["onboard", "#/", "table.rows"],
      ["orgs", "#/orgs", "table.rows"],
      ["profiles", `#/profiles?org=${seeded.crowdedOrg.id}`, ".narrowed a"],
      ["licenses", `#/licenses?user=${seeded.busyPerson}`, ".narrowed a"],
      ["workflows", "#/workflows?status=completed", "table.rows"],
      ["org", `#/orgs/${run.orgId}`, "dl"],
      ["profile", `#/profiles/${run.profileId}`, "dl"],
      ["license", `#/licenses/${run.licenseId}`, "dl"],
      ["workflow", `#/workflows/${run.workflowId}`, "dl"]
    ]
    const faults: Record<string, unknown> = {}
    for (const [name, address, ready] of pages) {
      await page.setViewportSize({ width: 1280, height: 800 })
      await page.goto(`${server.workflow}/${address}`)
      await page.locator(`main ${ready}`).first().waitFor({ timeout: 15_000 })
      await page.locator("main table.rows, main dl").first().waitFor({ timeout: 15_000 })
      const found = await layoutFaultsAtEachWidth(page)
      if (Object.keys(found).length > 0) faults[name] = found
      await screenshotConsole(page, name)
    }
    // The form's messages too, each under its field.
    await page.goto(`${server.workflow}/#/`)
    await page.getByRole("button", { name: "Onboard" }).click()
    await page.locator("#org-name-message:not(:empty)").waitFor({ timeout: 10_000 })
    const refused = await layoutFaultsAtEachWidth(page)
    if (Object.keys(refused).length > 0) faults["onboard, refused"] = refused
    expect(faults).toEqual({})
  }, 120_000)
})
