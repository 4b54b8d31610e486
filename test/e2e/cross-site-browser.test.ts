import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import type { Browser } from "playwright-core"
import { type Attempt, simpleContentTypes, stateChangingRoutes } from "../reliability/support/crossSite.js"
import { chromiumPath, launchBrowser } from "./support/Browser.js"
import { startAllInOne, stopProcess } from "./support/Processes.js"

/**
 * A web page the user visits, on a site of its own (`attacker.test`, resolved to this machine by
 * the browser's host-resolver rule as the attacker's DNS would), tries in real Chromium what
 * pages can do to another site without the user or a CORS preflight: submit an HTML form with
 * `enctype="text/plain"` whose body is JSON, and `fetch` with `mode: "no-cors"` and a simple
 * Content-Type (or none). The all-in-one process, with no token, must create nothing. Then the
 * same page after DNS rebinding: its own name now leads to a service port, so the browser treats
 * the port's answers as the page's own; the port must not answer to that name.
 */

const attacker = "attacker.test"

/** The attacker's site: the page at each path the test puts there (a blank one elsewhere). */
const attackerSite = async () => {
  const pages = new Map<string, string>()
  const server = http.createServer((request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
    response.end(pages.get(request.url ?? "/") ?? "<!doctype html><title>A page the user visits</title><p>Nothing to see here.</p>")
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { server, pages, origin: `http://${attacker}:${(server.address() as AddressInfo).port}` }
}

const attribute = (text: string) => text.replaceAll("&", "&amp;").replaceAll("\"", "&quot;").replaceAll("<", "&lt;")

/**
 * The JSON body as an HTML form with `enctype="text/plain"` sends it: the form encodes one field
 * as `name=value`, so the split falls inside a name the body carries ("Cross-site …"), which then
 * reads "=Cross-site …": a body every JSON route would take but for its content type. A license
 * carries no free text: its body closes with an extra `pad` field, which is refused on its own
 * too (contract §3.2), so for it what the test shows is that nothing is created.
 */
const textPlainForm = (json: string) => {
  const at = json.indexOf("\"Cross") + 1
  return at > 0 ? { name: json.slice(0, at), value: json.slice(at) } : { name: `${json.slice(0, -1)},"pad":"`, value: `"}` }
}

describe.skipIf(chromiumPath === undefined)("cross-site requests from a page in Chromium", () => {
  const context = {} as {
    browser: Browser
    services: Awaited<ReturnType<typeof startAllInOne>>
    site: Awaited<ReturnType<typeof attackerSite>>
  }
  beforeAll(async () => {
    ;[context.browser, context.services, context.site] = await Promise.all([
      launchBrowser([`--host-resolver-rules=MAP ${attacker} 127.0.0.1`]),
      startAllInOne({ ACCESS_LOG: "off" }),
      attackerSite()
    ])
  }, 90_000)
  afterAll(async () => {
    await context.browser?.close()
    context.site?.server.close()
    if (context.services !== undefined) await stopProcess(context.services.running)
  })

  const urlsOf = () => {
    const [org, profile, license, workflow] = context.services.ports.map((port) => `http://127.0.0.1:${port}`) as [string, string, string, string]
    return { org, profile, license, workflow }
  }
  const readBack = (attempt: Attempt) => fetch(`${urlsOf()[attempt.port]}${attempt.readBack}`).then((reply) => reply.status)

  it("an HTML form posting JSON as text/plain, and no-cors fetches of every POST route, create nothing", async () => {
    const urls = urlsOf()
    // The forms: each state-changing POST route with a JSON body, each submitted into a frame of the page.
    const forms = stateChangingRoutes.map((make) => make()).filter((attempt) => attempt.method === "POST" && typeof attempt.body === "string")
    const actions = forms.map((attempt) => `${urls[attempt.port]}${attempt.path}`)
    context.site.pages.set(
      "/forms",
      `<!doctype html><title>A page the user visits</title>\n` +
        forms.map((attempt, i) => {
          const field = textPlainForm(attempt.body as string)
          return `<iframe name="sink${i}"></iframe>` +
            `<form id="form${i}" method="post" enctype="text/plain" action="${attribute(actions[i]!)}" target="sink${i}">` +
            `<input type="hidden" name="${attribute(field.name)}" value="${attribute(field.value)}"><button>Win a prize</button></form>`
        }).join("\n")
    )
    const page = await context.browser.newPage()
    await page.goto(`${context.site.origin}/forms`)
    expect(new URL(page.url()).hostname).toBe(attacker)
    for (const [i, action] of actions.entries()) {
      await Promise.all([
        page.waitForResponse((response) => response.url() === action && response.request().method() === "POST"),
        page.locator(`#form${i} button`).click()
      ])
    }

    // The fetches: every POST route, each simple Content-Type and none (PUT cannot be sent no-cors at all).
    const fetched = stateChangingRoutes.flatMap((make) =>
      simpleContentTypes.map((contentType) => ({ attempt: make(), contentType }))
    ).filter(({ attempt }) => attempt.method === "POST")
    const outcomes = await page.evaluate(
      (calls) =>
        Promise.all(calls.map(({ url, body, contentType }) =>
          fetch(url, {
            method: "POST",
            mode: "no-cors",
            // Bytes: the browser adds no Content-Type of its own to them.
            body: new Uint8Array(body),
            ...(contentType === undefined ? {} : { headers: { "content-type": contentType } })
          }).then((response) => response.type, (error: Error) => `failed: ${error.message}`)
        )),
      fetched.map(({ attempt, contentType }) => ({
        url: `${urls[attempt.port]}${attempt.path}`,
        body: [...(typeof attempt.body === "string" ? Buffer.from(attempt.body) : attempt.body)],
        contentType
      }))
    )
    // The browser sent every one (an opaque answer: the page cannot read it, the server did get it).
    expect(new Set(outcomes)).toEqual(new Set(["opaque"]))

    const created = []
    for (const attempt of [...forms, ...fetched.map(({ attempt }) => attempt)]) {
      if ((await readBack(attempt)) !== 404) created.push(`${attempt.port}: ${attempt.route}`)
    }
    expect({ sent: forms.length + fetched.length, created }).toEqual({ sent: forms.length + fetched.length, created: [] })
    await page.close()
  }, 120_000)

  it("after DNS rebinding the page's own name leads to a service port: the port does not answer to it", async () => {
    const urls = urlsOf()
    const id = crypto.randomUUID()
    const made = await fetch(`${urls.org}/orgs/${id}`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Private Org" })
    })
    expect(made.status).toBe(200)
    const page = await context.browser.newPage()
    // `attacker.test` now resolves to the org port's address: the browser goes there as to the attacker's site.
    const orgPort = new URL(urls.org).port
    const reply = await page.goto(`http://${attacker}:${orgPort}/docs`)
    expect(reply?.status()).toBe(421)
    const read = await page.evaluate(
      (path) => fetch(path).then(async (response) => ({ status: response.status, body: await response.text() })),
      `/orgs/${id}`
    )
    expect(read.status).toBe(421)
    expect(read.body).not.toContain("Private Org")
    await page.close()
  }, 60_000)
})
