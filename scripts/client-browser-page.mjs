// A page of docs/examples.md's browser block as a front end serves it: the directory given
// (index.html and app.js) over HTTP at 127.0.0.1:<port>, opened in Chromium (`chromium`, the
// path given); prints what the page shows once it shows anything, or its errors and exits 1.
// Usage: node scripts/client-browser-page.mjs <directory> <port> <chromium>
import { readFile } from "node:fs/promises"
import { createServer } from "node:http"
import { extname, join, normalize } from "node:path"
import { chromium } from "playwright-core"

const [directory, port, executablePath] = process.argv.slice(2)
const types = { ".html": "text/html", ".js": "text/javascript" }

const server = createServer((request, response) => {
  const path = normalize(new URL(request.url, "http://page").pathname).replace(/^\/+/, "")
  readFile(join(directory, path)).then(
    (body) => response.writeHead(200, { "content-type": types[extname(path)] ?? "application/octet-stream" }).end(body),
    () => response.writeHead(404).end()
  )
})
await new Promise((resolve) => server.listen(Number(port), "127.0.0.1", resolve))

const browser = await chromium.launch({
  executablePath,
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
})
const problems = []
let shown
try {
  const page = await browser.newPage()
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`))
  page.on("console", (message) => message.type() === "error" && problems.push(`console: ${message.text()}`))
  await page.goto(`http://127.0.0.1:${port}/index.html`)
  await page.waitForFunction(() => document.body.innerText.trim() !== "", undefined, { timeout: 20_000 })
  shown = await page.evaluate(() => document.body.innerText)
} catch (error) {
  problems.push(String(error))
} finally {
  await browser.close()
  server.close()
}
if (shown === undefined) {
  console.error(`the page showed nothing:\n${problems.join("\n")}`)
  process.exit(1)
}
console.log(shown.trimEnd())
