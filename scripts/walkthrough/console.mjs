import { execFileSync } from "node:child_process"
import { randomUUID } from "node:crypto"
import { chromium } from "playwright-core"

/*
 * The console, in Debian's Chromium (as test/e2e/support/Browser.ts launches it): the profile's
 * page and the profiles list show the nickname, and the onboarding form has a field for it that
 * reaches the profile the run makes.
 */

const chromiumPath = () => {
  try {
    return execFileSync("bash", ["-c", "command -v chromium"]).toString().trim()
  } catch {
    throw new Error("no chromium on PATH (apt-get install -y --no-install-recommends chromium)")
  }
}

/** The record page and the list label a field they do not lay out by its name. */
const label = "Nickname"
const timeout = 15_000

export const consoleChecks = (urls) => {
  let browser
  const page = async () => {
    browser ??= await chromium.launch({ executablePath: chromiumPath(), args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"] })
    return browser.newPage()
  }
  const profile = { id: randomUUID(), fullName: "Console Person", orgId: randomUUID(), nickname: "Consy" }
  let made = false
  const seeded = async () => {
    if (made) return profile
    const { id, ...fields } = profile
    const response = await fetch(`${urls.profile}/profiles/${id}`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify(fields) })
    if (!response.ok) throw new Error(`the profile to show was not made: ${response.status} ${await response.text()}`)
    made = true
    return profile
  }
  const checks = [
    [`the console: the profile's page shows "${label}" and its value`, async () => {
      const { id, nickname } = await seeded()
      const tab = await page()
      await tab.goto(`${urls.workflow}/#/profiles/${id}`)
      const value = tab.locator(`main dl dt:text-is("${label}") + dd`)
      await value.waitFor({ timeout })
      const shown = (await value.innerText()).trim()
      if (shown !== nickname) throw new Error(`the page shows ${label} "${shown}", not "${nickname}"`)
      await tab.close()
    }],
    [`the console: the profiles list has a "${label}" column with the value`, async () => {
      const { nickname, orgId } = await seeded()
      const tab = await page()
      await tab.goto(`${urls.workflow}/#/profiles?org=${orgId}`)
      await tab.locator("table.rows tbody tr").first().waitFor({ timeout })
      const headings = (await tab.locator("table.rows thead th").allInnerTexts()).map((text) => text.trim())
      const column = headings.indexOf(label)
      if (column === -1) throw new Error(`the list's columns are ${headings.join(", ")}`)
      const cell = (await tab.locator(`table.rows tbody tr >> nth=0 >> td`).allInnerTexts())[column]?.trim()
      if (cell !== nickname) throw new Error(`the row's ${label} is "${cell}", not "${nickname}"`)
      await tab.close()
    }],
    [`the console: the onboarding form has a field for the nickname, labelled from its description, and the run's profile gets it`, async () => {
      const tab = await page()
      await tab.goto(`${urls.workflow}/`)
      await tab.getByRole("button", { name: "Onboard" }).waitFor({ timeout })
      // The form's inputs are named by their request paths, and labelled by the first clause of
      // their field's description (the recipe's, read from the profile's component in /openapi.json).
      const field = tab.locator("#profile-nickname")
      if ((await field.count()) !== 1) {
        const ids = await tab.locator("form input").evaluateAll((inputs) => inputs.map((input) => input.id))
        throw new Error(`no input #profile-nickname; the form's inputs: ${ids.join(", ")}`)
      }
      const document = await (await fetch(`${urls.profile}/openapi.json`)).json()
      const description = document.components.schemas.Profile.properties.nickname.description.split(":")[0]
      const expected = description.charAt(0).toUpperCase() + description.slice(1)
      const shown = (await tab.locator(`label[for="profile-nickname"]`).innerText()).trim()
      if (!shown.startsWith(expected)) throw new Error(`the nickname's label is "${shown}", not "${expected}" (its description's first clause)`)
      await tab.locator("#org-name").fill("Form Org")
      await tab.locator("#profile-full-name").fill("Form Person")
      await field.fill("Formy")
      await tab.locator("#license-start").fill("2025-01-01T09:00")
      await tab.locator("#license-end").fill("2026-01-01T09:00")
      await tab.getByRole("button", { name: "Onboard" }).click()
      const link = tab.locator(`#result dl dt:text-is("Profile") + dd a`)
      await link.waitFor({ timeout })
      const profileId = (await link.getAttribute("href")).split("/").at(-1)
      const read = await (await fetch(`${urls.profile}/profiles/${profileId}`)).json()
      if (read.profile?.nickname !== "Formy") throw new Error(`the run's profile has nickname ${JSON.stringify(read.profile?.nickname)}`)
      await tab.close()
    }]
  ]
  return { checks, close: () => browser?.close() }
}
