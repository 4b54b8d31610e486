import { describe, expect, it } from "vitest"
import { randomUUID } from "node:crypto"
import type { Page } from "playwright-core"
import { browserAndServer, chromiumPath, offPortRequests, screenshotAtBothWidths } from "./support/Browser.js"
import { startAllInOne, stopProcess } from "./support/Processes.js"

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
    await page.keyboard.type(`query GraphiqlWorks { org(id: "${id}") { org { id name`)
    // GraphiQL reads the operation's name from the editor a moment after an edit: run it once the tab shows it.
    await expect.poll(() => page.locator(".graphiql-tab-active").innerText()).toContain("GraphiqlWorks")
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

  it("GraphiQL names the port's service and opens on its example query, which runs as it stands", async () => {
    const { browser, server } = running
    await createOrg(server.org, "Example Query Co")
    const page = await browser.newPage()
    await page.goto(`${server.org}/graphql`)
    expect(await page.title()).toBe("Org service — GraphiQL")
    const editor = page.locator(".graphiql-query-editor .CodeMirror").first()
    await editor.waitFor({ timeout: 30_000 })
    expect(await editor.innerText()).toContain("query NewestOrgs")
    // No token is needed here: no notice, no prefilled header.
    expect(await page.locator("#token-notice").count()).toBe(0)
    await page.locator(".graphiql-execute-button").click()
    await expect.poll(() => page.locator(".graphiql-response").innerText(), { timeout: 15_000 }).toContain("Example Query Co")
    expect(await page.locator(".graphiql-response").innerText()).not.toContain("errors")
    await page.close()
    // Each port its own: the workflow port's page is named after the workflow service.
    const workflow = await browser.newPage()
    await workflow.goto(`${server.workflow}/graphql`)
    expect(await workflow.title()).toBe("Onboarding workflow service — GraphiQL")
    await workflow.locator(".graphiql-query-editor .CodeMirror").first().waitFor({ timeout: 30_000 })
    expect(await workflow.locator(".graphiql-query-editor .CodeMirror").first().innerText()).toContain("onboardingWorkflows")
    await workflow.close()
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

  /** Opens an operation of /docs (its method and path) and clicks Execute as it stands; the status it shows. */
  const executeUnchanged = async (page: Page, method: string, path: string) => {
    const operation = page.locator(`.opblock-${method}`, { has: page.locator(`[data-path="${path}"]`) })
    if (!(await operation.getAttribute("class"))?.includes("is-open")) await operation.locator(".opblock-summary").click()
    await operation.getByRole("button", { name: "Execute" }).click()
    const status = operation.locator(".live-responses-table tbody .response-col_status").first()
    await status.waitFor({ timeout: 15_000 })
    const shown = (await status.innerText()).trim()
    // Closed again (and its answer cleared), so the next click is a first click too.
    await operation.getByRole("button", { name: "Clear" }).click()
    await operation.locator(".opblock-summary").click()
    return shown
  }

  it("/docs: each create executes as prefilled (the same example id in path and body), and again", async () => {
    const { browser, server } = running
    const page = await browser.newPage()
    await page.goto(`${server.org}/docs`)
    await page.locator(".opblock").first().waitFor({ timeout: 30_000 })
    const put = page.locator(".opblock-put", { has: page.locator(`[data-path="/orgs/{id}"]`) })
    await put.locator(".opblock-summary").click()
    const pathId = await put.locator("input[placeholder='id']").inputValue()
    expect(pathId).toMatch(/^[0-9a-f-]{36}$/)
    expect(JSON.parse(await put.locator("textarea.body-param__text").inputValue())).toMatchObject({ id: pathId })
    await put.locator(".opblock-summary").click()
    // PUT and POST are the same create: the second answers the first's record (a replay).
    expect(await executeUnchanged(page, "put", "/orgs/{id}")).toBe("200")
    expect(await executeUnchanged(page, "post", "/orgs/{id}")).toBe("200")
    // Read back with the same example id.
    expect(await executeUnchanged(page, "get", "/orgs/{id}")).toBe("200")
    await page.close()
    // The onboarding's example carries a fixed workflow id: the second execution replays the first run.
    const workflow = await browser.newPage()
    await workflow.goto(`${server.workflow}/docs`)
    await workflow.locator(".opblock").first().waitFor({ timeout: 30_000 })
    expect(await executeUnchanged(workflow, "post", "/workflow/workflows/onboarding")).toBe("200")
    expect(await executeUnchanged(workflow, "post", "/workflow/workflows/onboarding")).toBe("200")
    await workflow.close()
  }, 90_000)

  it("/docs: a list's query parameters appear once each, pageSize an integer; the token goes in Authorize only", async () => {
    const { browser, server } = running
    const page = await browser.newPage()
    await page.goto(`${server.org}/docs`)
    await page.locator(".opblock").first().waitFor({ timeout: 30_000 })
    const list = page.locator(".opblock-get", { has: page.locator(`[data-path="/orgs"]`) })
    await list.locator(".opblock-summary").click()
    const rows = list.locator(".parameters tbody tr[data-param-name]")
    await rows.first().waitFor()
    const parameters = await rows.evaluateAll((each) =>
      each.map((row) => [row.getAttribute("data-param-name"), row.querySelector(".parameter__type")?.textContent?.trim()])
    )
    expect(parameters).toEqual([["pageSize", "integer"], ["pageToken", "string"]])
    expect(await executeUnchanged(page, "get", "/orgs")).toBe("200")
    // One token control: Swagger UI's Authorize, wired to the bearer scheme; no field of the page's own.
    expect(await page.locator("input").evaluateAll((inputs) => inputs.filter((input) => /token/i.test(`${input.id} ${input.getAttribute("name")} ${input.getAttribute("aria-label")}`)).length)).toBe(0)
    await page.getByRole("button", { name: "Authorize" }).first().click()
    const dialog = page.locator(".modal-ux")
    await expect.poll(() => dialog.innerText()).toContain("bearer")
    expect(await dialog.locator("input").count()).toBe(1)
    await page.close()
  }, 90_000)

  it("with API_TOKEN set and the document behind it, /docs says so, and Authorize loads it and signs every call", async () => {
    const { browser } = running
    const token = "docs-page-token"
    const guarded = await start({ API_TOKEN: token, SCHEMA_ACCESS: "token" })
    try {
      const page = await browser.newPage()
      await page.goto(`${guarded.org}/docs`)
      // Without the token the document itself is refused: the page says what to do, not the raw error.
      await expect.poll(() => page.locator("#docs").innerText(), { timeout: 30_000 }).toContain("needs its API token")
      expect(await page.locator("#docs").innerText()).not.toMatch(/Failed to load API definition|Unauthorized/)
      await screenshotAtBothWidths(page, "docs-token-required")
      await page.getByRole("button", { name: "Authorize" }).first().click()
      await page.locator(".modal-ux input").fill(token)
      await page.locator(".modal-ux button.authorize").click()
      await page.locator(".modal-ux button.btn-done").click()
      await page.locator(".opblock").first().waitFor({ timeout: 30_000 })
      const document = await (await fetch(`${guarded.org}/openapi.json`, { headers: { authorization: `Bearer ${token}` } })).json() as {
        paths: Record<string, Record<string, unknown>>
      }
      expect(await page.locator(".opblock").count()).toBe(Object.values(document.paths).flatMap((item) => Object.keys(item)).length)
      // Try-it carries the token: the list answers 200, not 401.
      expect(await executeUnchanged(page, "get", "/orgs")).toBe("200")
      // The token stays in the tab: a reload keeps it.
      await page.reload()
      await page.locator(".opblock").first().waitFor({ timeout: 30_000 })
      expect(await executeUnchanged(page, "get", "/orgs")).toBe("200")
    } finally {
      await stopProcess(guarded.running)
    }
  }, 90_000)

  it("with API_TOKEN set, GraphiQL shows where the token goes, and a query with it answers", async () => {
    const { browser } = running
    const token = "graphiql-page-token"
    const guarded = await start({ API_TOKEN: token })
    try {
      const page = await browser.newPage()
      await page.goto(`${guarded.org}/graphql`)
      await expect.poll(() => page.locator("#token-notice").innerText(), { timeout: 30_000 }).toContain("Headers")
      // The Headers tab is open, holding where the token goes.
      const headers = page.locator(".graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror").first()
      await expect.poll(() => headers.innerText()).toContain("Bearer <API_TOKEN>")
      await screenshotAtBothWidths(page, "graphiql-token-required")
      await headers.click()
      await page.keyboard.press("Control+A")
      await page.keyboard.press("Delete")
      // CodeMirror closes brackets and quotes itself: typed without the closing ones.
      await page.keyboard.type(`{"Authorization": "Bearer ${token}`)
      await page.locator(".graphiql-execute-button").click()
      await expect.poll(() => page.locator(".graphiql-response").innerText(), { timeout: 15_000 }).toContain("nextPageToken")
      expect(await page.locator(".graphiql-response").innerText()).not.toContain("UNAUTHENTICATED")
      // /docs on the same server (its document open, SCHEMA_ACCESS's default) says calls need the token.
      const docs = await browser.newPage()
      await docs.goto(`${guarded.org}/docs`)
      await docs.locator(".opblock").first().waitFor({ timeout: 30_000 })
      expect(await docs.locator("#docs .info").innerText()).toContain("Calls need the server's API token: click Authorize")
    } finally {
      await stopProcess(guarded.running)
    }
  }, 90_000)
})
