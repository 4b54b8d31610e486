import { mkdirSync } from "node:fs"
import { join } from "node:path"
import type { Page } from "playwright-core"

// The page's globals as these functions use them there (tsconfig.json has no DOM types: they run in the browser).
declare const document: any
declare const NodeFilter: any
declare const requestAnimationFrame: (callback: () => void) => void

/** Where the console's screenshots go, one per page per width, for a person to look at. */
const screenshots = join(process.cwd(), "reports", "console")

/** A phone's width and a laptop's: the two a person checks the console at. */
export const screenshotWidths = [{ width: 375, height: 812 }, { width: 1280, height: 800 }] as const

/** The widths no word may break at: the narrowest phone to a wide desktop. */
export const layoutWidths = [320, 375, 768, 1280, 1920] as const

/** The page as shown at 375 and 1280 px, saved as `reports/console/<name>-<width>.png`. */
export const screenshotConsole = async (page: Page, name: string) => {
  mkdirSync(screenshots, { recursive: true })
  for (const size of screenshotWidths) {
    await page.setViewportSize(size)
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve(undefined))))
    await page.screenshot({ path: join(screenshots, `${name}-${size.width}.png`) })
  }
}

/**
 * What is wrong with the page's layout at its current width: each word drawn over two lines
 * ("Stat|us"), and a page wider than the window. A word may wrap after a hyphen (a UUID, a
 * date range), as text does, so each part up to a hyphen counts as a word.
 */
export const layoutFaults = (page: Page): Promise<Array<string>> =>
  page.evaluate(() => {
    const faults: Array<string> = []
    const root = document.documentElement
    if (root.scrollWidth > root.clientWidth) faults.push(`the page is ${root.scrollWidth} px wide in a ${root.clientWidth} px window`)
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT)
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      const parent = node.parentElement
      if (parent === null || parent.closest("script, style, option") !== null || parent.getClientRects().length === 0) continue
      const text = node.textContent ?? ""
      for (const match of text.matchAll(/[^\s\-–]+[\-–]?/g)) {
        const range = document.createRange()
        range.setStart(node, match.index!)
        range.setEnd(node, match.index! + match[0].length)
        const lines = new Set([...range.getClientRects()].filter((rect: any) => rect.width > 0).map((rect: any) => Math.round(rect.top)))
        if (lines.size > 1) faults.push(`"${match[0]}" broken over ${lines.size} lines in <${parent.tagName.toLowerCase()}>`)
      }
    }
    return faults
  })

/** The layout's faults at each width from 320 to 1920 px, keyed by width (empty when there are none). */
export const layoutFaultsAtEachWidth = async (page: Page) => {
  const found: Record<number, Array<string>> = {}
  for (const width of layoutWidths) {
    await page.setViewportSize({ width, height: 900 })
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve(undefined))))
    const faults = await layoutFaults(page)
    if (faults.length > 0) found[width] = faults
  }
  return found
}
