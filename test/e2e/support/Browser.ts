import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { type Browser, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll } from "vitest"
import { systemTool } from "../../support/SystemTools.js"
import { startAllInOne, stopProcess } from "./Processes.js"

/** Debian's Chromium (playwright's own browser download cannot run here), or undefined without it. */
export const chromiumPath = systemTool("chromium")

/**
 * Headless Chromium as this machine allows it: no sandbox as root, nothing reached over the
 * network. `args` adds switches (`--host-resolver-rules`, to give a name the address a DNS server
 * of the test's would).
 */
export const launchBrowser = (args: ReadonlyArray<string> = []): Promise<Browser> =>
  chromium.launch({
    executablePath: chromiumPath!,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      ...args
    ]
  })

/** Where screenshots go: test artifacts, not committed (reports/ is ignored). */
const screenshots = join(process.cwd(), "reports", "screenshots")

/** The page at a phone's width (375 px) and a laptop's (1280 px), saved as `<name>-<width>.png`. */
export const screenshotAtBothWidths = async (page: Page, name: string) => {
  mkdirSync(screenshots, { recursive: true })
  for (const width of [375, 1280]) {
    await page.setViewportSize({ width, height: 900 })
    await page.screenshot({ path: join(screenshots, `${name}-${width}.png`), fullPage: false })
  }
}

/** Every request the page made that did not go to the port itself: none may (the pages work offline). */
export const offPortRequests = (page: Page, origin: string): Array<string> => {
  const elsewhere: Array<string> = []
  page.on("request", (request) => {
    const url = request.url()
    if (!url.startsWith(origin) && !url.startsWith("data:")) elsewhere.push(url)
  })
  return elsewhere
}

/**
 * For a describe block: Chromium and the all-in-one process, started before its tests and stopped
 * after them. Its fields are there once the block's tests run.
 */
export const browserAndServer = (env: Record<string, string> = {}) => {
  const context = {} as { browser: Browser; server: Awaited<ReturnType<typeof startAllInOne>> }
  beforeAll(async () => {
    ;[context.browser, context.server] = await Promise.all([launchBrowser(), startAllInOne({ ACCESS_LOG: "off", ...env })])
  }, 90_000)
  afterAll(async () => {
    await context.browser?.close()
    if (context.server !== undefined) await stopProcess(context.server.running)
  })
  return context
}
