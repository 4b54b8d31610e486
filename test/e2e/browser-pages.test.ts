import { describe, expect, it } from "vitest"
import { randomUUID } from "node:crypto"
import { browserAndServer, chromiumPath, offPortRequests, screenshotAtBothWidths } from "./support/Browser.js"
import { startAllInOne, stopProcess } from "./support/Servers.js"

/**
 * The pages a person opens on a port — GraphiQL at /graphql, the REST reference at /docs — in a
 * real (headless) Chromium, against the all-in-one process, with nothing loaded from anywhere
 * but the port itself.
 */

const start = (env: Record<string, string> = {}) => startAllInOne({ ACCESS_LOG: "off", ...env })

const createOrg = async (origin: string, name: string, headers: Record<string, string> = {}) => {
  const id = randomUUID()
  const reply = await fetch(`${origin}/orgs/${id}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ name })
  })
  expect(reply.status).toBe(200)
  return id
}

describe.skipIf(chromiumPath === undefined)("pages for people, in Chromium", () => {
  const running = browserAndServer()

  it("GraphiQL at /graphql runs a query against the port and shows its result", async () => {
    const { browser, server } = running
    const id = await createOrg(server.org, "Graphiql Works Inc")
    const page = await browser.newPage()
    const elsewhere = offPortRequests(page, server.org)
    const reply = await page.goto(`${server.org}/graphql`)
    expect(reply?.headers()["content-security-policy"]).toContain("script-src 'self'")
    // GraphiQL fetches the schema (the standard introspection query) before its editor is ready.
    const editor = page.locator(".graphiql-query-editor .CodeMirror").first()
    await editor.waitFor({ timeout: 30_000 })
    await editor.click()
    await page.keyboard.press("Control+A")
    await page.keyboard.press("Delete")
    // CodeMirror closes brackets itself: the query is typed without its closing ones.
    await page.keyboard.type(`{ org(id: "${id}") { org { id name`)
    await page.locator(".graphiql-execute-button").click()
    await expect.poll(() => page.locator(".graphiql-response").innerText(), { timeout: 15_000 }).toContain("Graphiql Works Inc")
    await screenshotAtBothWidths(page, "graphiql")
    expect(elsewhere).toEqual([])
    // API clients still get GraphQL over HTTP at the same path.
    const api = await fetch(`${server.org}/graphql?query=${encodeURIComponent("{ __typename }")}`, {
      headers: { accept: "application/graphql-response+json" }
    })
    expect(await api.json()).toEqual({ data: { __typename: "Query" } })
  }, 60_000)

  it("every page loads without a failed request: the icon browsers ask for is there", async () => {
    const { browser, server } = running
    const icon = await fetch(`${server.org}/favicon.ico`)
    expect([icon.status, icon.headers.get("content-type")]).toEqual([200, "image/png"])
    expect((await icon.arrayBuffer()).byteLength).toBeGreaterThan(0)
    for (const url of [`${server.org}/docs`, `${server.org}/graphql`, `${server.workflow}/`]) {
      const page = await browser.newPage()
      const failed: Array<string> = []
      page.on("response", (response) => {
        if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`)
      })
      await page.goto(url, { waitUntil: "networkidle" })
      expect([url, failed]).toEqual([url, []])
      await page.close()
    }
  }, 60_000)

  it("/docs lists every REST operation of the port, and its try-it calls the port", async () => {
    const { browser, server } = running
    for (const origin of [server.org, server.workflow]) {
      // Every operation the port's own OpenAPI document declares.
      const document = await (await fetch(`${origin}/openapi.json`)).json() as { paths: Record<string, Record<string, unknown>> }
      const operations = Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
      expect(operations.length).toBeGreaterThanOrEqual(2)
      const page = await browser.newPage()
      const elsewhere = offPortRequests(page, origin)
      await page.goto(`${origin}/docs`)
      await page.locator(".opblock").first().waitFor({ timeout: 30_000 })
      const shown = await page.locator(".opblock-summary").evaluateAll((blocks) =>
        blocks.map((block) =>
          `${block.querySelector(".opblock-summary-method")?.textContent?.trim()} ${
            block.querySelector(".opblock-summary-path")?.getAttribute("data-path") ??
              block.querySelector(".opblock-summary-path")?.textContent?.trim()
          }`
        )
      )
      expect([...shown].sort()).toEqual([...operations].sort())
      expect(elsewhere).toEqual([])
      await page.close()
    }
    const id = await createOrg(server.org, "Docs Try It Ltd")
    const page = await browser.newPage()
    await page.goto(`${server.org}/docs`)
    const get = page.locator(".opblock-get", { has: page.locator(`[data-path="/orgs/{id}"]`) })
    await get.locator(".opblock-summary").click()
    // tryItOutEnabled: the parameters are editable as soon as the operation opens.
    await get.locator("input[placeholder='id']").fill(id)
    await get.getByRole("button", { name: "Execute" }).click()
    await expect.poll(() => get.locator(".live-responses-table tbody .response-col_status").first().innerText(), { timeout: 15_000 })
      .toContain("200")
    await expect.poll(() => get.locator(".live-responses-table tbody .microlight").first().innerText()).toContain("Docs Try It Ltd")
    await screenshotAtBothWidths(page, "docs")
  }, 90_000)

  it("with API_TOKEN set, /docs asks for the token and uses it for the document and for try-it", async () => {
    const { browser } = running
    const token = "docs-page-token"
    const guarded = await start({ API_TOKEN: token })
    try {
      const page = await browser.newPage()
      await page.goto(`${guarded.org}/docs`)
      // Without the token the document itself is refused: nothing to list yet.
      await page.getByLabel(/API token/).fill(token)
      await page.getByRole("button", { name: "Use token" }).click()
      await page.locator(".opblock").first().waitFor({ timeout: 30_000 })
      const document = await (await fetch(`${guarded.org}/openapi.json`, { headers: { authorization: `Bearer ${token}` } })).json() as {
        paths: Record<string, Record<string, unknown>>
      }
      expect(await page.locator(".opblock").count()).toBe(Object.values(document.paths).flatMap((item) => Object.keys(item)).length)
      // The token stays in the tab: a reload keeps it.
      await page.reload()
      await page.locator(".opblock").first().waitFor({ timeout: 30_000 })
    } finally {
      await stopProcess(guarded.running)
    }
  }, 90_000)
})
