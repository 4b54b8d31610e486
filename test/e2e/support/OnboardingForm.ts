import type { Page } from "playwright-core"

/** The console's onboarding form as a person fills it in, and the result it shows. */

export interface FormValues {
  readonly org: string
  readonly person: string
  readonly start: string
  readonly end: string
  readonly workflowId?: string
}

/** Fills the form and submits it. */
export const onboard = async (page: Page, values: FormValues) => {
  await page.getByLabel("The org's display name").fill(values.org)
  await page.getByLabel("The person's full name").fill(values.person)
  await page.getByLabel("When the license starts").fill(values.start)
  await page.getByLabel("When the license ends").fill(values.end)
  if (values.workflowId !== undefined) await page.getByLabel("The caller's idempotency key (a UUID)").fill(values.workflowId)
  await page.getByRole("button", { name: "Onboard" }).click()
}

/** The onboarded result's links, by the term they stand under: their text and the id they lead to. */
export const shownResult = async (page: Page) => {
  const result = page.locator("#result dl")
  await result.waitFor({ timeout: 15_000 })
  const shown: Record<string, { text: string; id: string }> = {}
  for (const term of ["Workflow run", "Organization", "Profile", "License"]) {
    const link = result.locator(`dt:text-is("${term}") + dd a`)
    shown[term] = { text: (await link.innerText()).trim(), id: (await link.getAttribute("href"))!.split("/").at(-1)! }
  }
  return shown
}
