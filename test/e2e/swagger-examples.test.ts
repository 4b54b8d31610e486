import { describe, expect, it } from "vitest"
import type { Page } from "playwright-core"
import { browserAndServer, chromiumPath } from "./support/Browser.js"

/**
 * Swagger UI's examples as a person uses them: on every port's /docs, each operation opened,
 * "Try it out", "Execute" with what it prefilled, in the order a person creates and reads back
 * (each port's writes before its reads; org, then profile, then license, then the workflow).
 * Every answer is 2xx; the whole round a second time too, and that second round creates nothing
 * (every create's example has a fixed id, the workflow's a fixed workflow id).
 */

type Document = { readonly paths: Record<string, Record<string, unknown>> }

const ports = ["org", "profile", "license", "workflow"] as const

/** A port's operations in the order a person executes them: writes, then reads of one record, then lists. */
const inOrder = (document: Document): Array<readonly [method: string, path: string]> => {
  const rank = ([method, path]: readonly [string, string]) => method !== "get" ? 0 : path.endsWith("}") ? 1 : 2
  return Object.entries(document.paths)
    .flatMap(([path, item]) => Object.keys(item).map((method) => [method, path] as const))
    .sort((a, b) => rank(a) - rank(b))
}

/** Opens the operation, clicks "Try it out" (when the page shows it) and "Execute" as prefilled; its status and the examples shown. */
const execute = async (page: Page, method: string, path: string) => {
  const operation = page.locator(`.opblock-${method}`, { has: page.locator(`[data-path="${path}"]`) })
  await operation.locator(".opblock-summary").click()
  const tryItOut = operation.getByRole("button", { name: "Try it out" })
  if (await tryItOut.count() > 0) await tryItOut.click()
  await operation.getByRole("button", { name: "Execute" }).waitFor()
  const examples = await operation.locator(".responses-wrapper .example, .responses-wrapper .microlight").allInnerTexts()
  await operation.getByRole("button", { name: "Execute" }).click()
  const status = operation.locator(".live-responses-table tbody .response-col_status").first()
  await status.waitFor({ timeout: 15_000 })
  const shown = { status: (await status.innerText()).trim(), answer: await operation.locator(".live-responses-table tbody .microlight").first().innerText() }
  // Closed again, its answer cleared: the next round opens it afresh.
  await operation.getByRole("button", { name: "Clear" }).click()
  await operation.locator(".opblock-summary").click()
  return { ...shown, examples }
}

/** How many rows each list holds, page by page (the lists are the records a round may have created). */
const counts = async (urls: Record<(typeof ports)[number], string>) => {
  const lists = { org: ["/orgs", "orgs"], profile: ["/profiles", "profiles"], license: ["/licenses", "licenses"], workflow: ["/workflow/workflows/onboarding", "workflows"] } as const
  const counted: Record<string, number> = {}
  for (const port of ports) {
    const [path, key] = lists[port]
    let total = 0
    let token = ""
    do {
      const page = await (await fetch(`${urls[port]}${path}?pageSize=100&pageToken=${token}`)).json() as Record<string, unknown>
      total += (page[key] as Array<unknown>).length
      token = page["nextPageToken"] as string
    } while (token !== "")
    counted[key] = total
  }
  return counted
}

describe.skipIf(chromiumPath === undefined)("Swagger UI's examples, executed as prefilled on every port, in Chromium", () => {
  const running = browserAndServer()

  it("every operation answers 2xx, in order, twice, and the second round creates nothing; no example shows [null]", async () => {
    const { browser, server } = running
    const urls = Object.fromEntries(ports.map((port, i) => [port, `http://127.0.0.1:${server.ports[i]}`])) as Record<(typeof ports)[number], string>
    expect(await counts(urls)).toEqual({ orgs: 0, profiles: 0, licenses: 0, workflows: 0 })
    const rounds: Array<Record<string, number>> = []
    for (const round of [1, 2]) {
      for (const port of ports) {
        const document = await (await fetch(`${urls[port]}/openapi.json`)).json() as Document
        const page = await browser.newPage()
        await page.goto(`${urls[port]}/docs`)
        await page.locator(".opblock").first().waitFor({ timeout: 30_000 })
        for (const [method, path] of inOrder(document)) {
          const { status, answer, examples } = await execute(page, method, path)
          expect.soft({ round, port, method, path, status, answer }).toEqual({ round, port, method, path, status: expect.stringMatching(/^2\d\d$/), answer })
          if (round === 1) expect.soft({ method, path, nullItems: examples.filter((text) => /\[\s*null\s*\]/.test(text)) }).toEqual({ method, path, nullItems: [] })
        }
        await page.close()
      }
      rounds.push(await counts(urls))
    }
    // The first round made the example records (and the workflow its own three); the second, nothing.
    expect.soft(rounds[0]).toEqual({ orgs: 2, profiles: 2, licenses: 2, workflows: 1 })
    expect(rounds[1]).toEqual(rounds[0])
  }, 240_000)
})
