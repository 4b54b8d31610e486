import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import type { Request, Response } from "../http/RequestHandler.js"
import { pathOf } from "../http/Calls.js"
import { requestHost } from "../limits/AllowedHosts.js"
import { onboardingForm } from "./OnboardingForm.js"
import { asset, type Asset } from "./PackageFiles.js"
import { contentSecurityPolicy, css, javascript, page, send } from "./PageResponses.js"

/** The four services' origins as a browser reaches them, given the host name it used for this one. */
export type ServiceOrigins = (hostname: string | undefined) => {
  readonly org: string
  readonly profile: string
  readonly license: string
  readonly workflow: string
}

/** What the console is told by the settings: where it finds the services. */
export interface ConsoleSettings {
  /** For `/console/config.json`: the origins at the host name the browser used (one the port answers to). */
  readonly origins: ServiceOrigins
  /**
   * Every origin the console's scripts may call (its Content-Security-Policy's `connect-src`): the
   * services at each host name the process answers to, or their `*_SERVICE_URL`. Fixed at start:
   * a policy built from the request's Host would be whatever the caller wrote there
   * (`Host: evil.example; script-src *`).
   */
  readonly connectTo: ReadonlyArray<string>
}

/**
 * The project's directory: the console's scripts are compiled into its `dist/console` by
 * `npm run build` (tsconfig.console.json), whether this module runs from `dist` or, in tests,
 * from `src`.
 */
const projectDirectory = (() => {
  let directory = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(directory, "package.json")) && dirname(directory) !== directory) directory = dirname(directory)
  return directory
})()

const consoleDirectory = join(projectDirectory, "dist", "console")

const scriptAsset = (name: string) =>
  asset(javascript, () => {
    const file = join(consoleDirectory, name)
    if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\``)
    return readFileSync(file)
  })

/**
 * The console's modules, as its build emitted them: listed from `dist/console` once it is there,
 * so a module added to the console is served with no edit here.
 */
let scripts: ReadonlyMap<string, Asset> | undefined
const scriptNamed = (name: string): Asset | undefined => {
  if (!existsSync(consoleDirectory)) return name === "main.js" ? scriptAsset(name) : undefined
  scripts ??= new Map(readdirSync(consoleDirectory).filter((file) => file.endsWith(".js")).map((file) => [file, scriptAsset(file)]))
  return scripts.get(name)
}

/**
 * The API token's form: open at the top when the server asks for one; without authentication,
 * folded under its summary (a service of another process may still ask for one), so that a phone's
 * first screen is the page's own.
 */
const tokenForm = `<form id="token-form" aria-label="API access">
    <label for="token">API token</label>
    <input id="token" name="token" type="password" autocomplete="off" aria-describedby="token-hint" pattern="[ ]*[!-~]*[ ]*" title="An API token is visible ASCII, without spaces">
    <button type="submit">Use</button>
    <p id="token-hint" class="hint">Only if the server has one; kept in this tab only.</p>
  </form>`

const consolePage = (tokenRequired: boolean) => page(
  "Onboarding console",
  `<link rel="stylesheet" href="/console/console.css">`,
  `<header>
  <a class="brand" href="#/">Onboarding console</a>
  <nav class="menu" aria-label="Menu">
    <a href="#/">Onboard</a>
    <a href="#/workflows">Workflow runs</a>
    <a href="#/orgs">Organizations</a>
    <a href="#/profiles">Profiles</a>
    <a href="#/licenses">Licenses</a>
  </nav>
  ${tokenRequired ? tokenForm : `<details id="token-access"><summary>API token</summary>
  ${tokenForm}
  </details>`}
</header>
<main id="view" tabindex="-1"><p>Loading…</p></main>
<script type="module" src="/console/main.js"></script>`
)

const styles = asset(css, () =>
  `:root { font-family: system-ui, sans-serif; line-height: 1.5; color: #1b1f24; background: #fff; }
body { margin: 0; }
/* Words break only where they may (spaces, hyphens): never "Stat us" in a narrow cell. */
body, table, td, th { word-break: normal; overflow-wrap: normal; hyphens: manual; }
header { display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; align-items: center; padding: .75rem 1rem; background: #f4f5f7; border-bottom: 1px solid #d0d4da; }
.brand { font-weight: 700; color: inherit; text-decoration: none; }
nav.menu { display: flex; flex-wrap: wrap; gap: .25rem 1rem; }
nav.menu a[aria-current="page"] { font-weight: 700; }
#token-form { display: grid; grid-template-columns: auto minmax(0, 12rem) auto; gap: .25rem .5rem; align-items: center; margin-left: auto; font-size: .9rem; }
#token-form .hint { grid-column: 1 / -1; font-size: .8rem; }
#token-access { margin-left: auto; font-size: .9rem; }
#token-access summary { cursor: pointer; color: #0b5cad; }
#token-access[open] summary { margin-bottom: .25rem; }
#token-access #token-form { margin-left: 0; }
main { max-width: 64rem; margin: 0 auto; padding: 1rem; }
h1 { margin: .25rem 0 .75rem; font-size: 1.6rem; }
h2 { font-size: 1.2rem; margin: 1.5rem 0 .5rem; }
form { display: grid; gap: .75rem; max-width: 36rem; }
form.inline { grid-template-columns: minmax(0, 1fr) auto; align-items: end; margin-bottom: .75rem; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: .75rem; }
/* Side by side, the two fields share rows (label, hint, input, message): a longer hint or a message under one moves neither input. */
@media (min-width: 30.01rem) {
  .pair { grid-template-rows: repeat(4, auto); row-gap: 0; }
  .pair > .field { grid-row: span 4; grid-template-rows: subgrid; align-content: start; }
  .pair > .field > label { grid-row: 1; } .pair > .field > .hint { grid-row: 2; }
  .pair > .field > input { grid-row: 3; } .pair > .field > .field-message { grid-row: 4; }
}
@media (max-width: 30rem) { .pair, form.inline { grid-template-columns: 1fr; } #token-form, #token-access { margin-left: 0; } }
.field { display: grid; gap: .2rem; min-width: 0; align-content: start; }
label { font-weight: 600; }
.hint { margin: 0; font-size: .9rem; color: #4a525c; }
input, select, button { font: inherit; padding: .45rem .6rem; border: 1px solid #8a929c; border-radius: 4px; min-width: 0; }
select { background: #fff; }
button { background: #0b5cad; color: #fff; border-color: #0b5cad; cursor: pointer; justify-self: start; }
button[disabled] { opacity: .6; }
:focus-visible { outline: 3px solid #f0b400; outline-offset: 2px; }
/* A heading is focused when its page is drawn, for screen readers; it is not a control to outline. */
h1[tabindex="-1"]:focus { outline: none; }
input[aria-invalid="true"] { border-color: #b3261e; }
.field-message, .error { color: #b3261e; margin: 0; }
.field-message:empty { display: none; }
.unnamed { color: #4a525c; }
/* An id is one long word: small and fixed-width it fits 320 px; past that it may wrap at last. */
code.id { font: .8rem ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; overflow-wrap: anywhere; }
input.id { font: .75rem/2 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
dl.record { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .25rem 1rem; }
dl.record dt { font-weight: 600; }
dl.record dd { margin: 0; min-width: 0; }
@media (max-width: 30rem) { dl.record { grid-template-columns: minmax(0, 1fr); gap: 0; } dl.record dd { margin-bottom: .5rem; } }
table.rows { border-collapse: collapse; width: 100%; }
caption { text-align: left; font-weight: 600; padding-bottom: .25rem; }
th, td { text-align: left; vertical-align: top; padding: .35rem .5rem; border-bottom: 1px solid #e1e4e8; }
/* On a phone each row is a card, each cell labelled by its column's heading. */
@media (max-width: 40rem) {
  table.rows, table.rows tbody, table.rows tr, table.rows td { display: block; width: auto; }
  table.rows caption { display: block; }
  table.rows thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
  table.rows tr { border: 1px solid #e1e4e8; border-radius: 6px; padding: .25rem .5rem; margin-bottom: .5rem; }
  table.rows td { border: 0; padding: .15rem 0; display: grid; grid-template-columns: 7rem minmax(0, 1fr); gap: .5rem; }
  table.rows td::before { content: attr(data-label); font-weight: 600; }
}
.paging { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; margin-top: .75rem; }
.paging-edge { color: #8a929c; }
.paging-at { font-weight: 600; }
.narrowed, .related { margin: .5rem 0; }
`)

/**
 * The onboarding console, served by the workflow service at `GET /`: the page, its scripts at
 * `/console/*.js`, and `/console/config.json`, which says where each service answers and what
 * the onboarding form asks (OnboardingForm.ts).
 */
export const consolePages = (settings: ConsoleSettings, tokenRequired: boolean) => {
  const policy = { "content-security-policy": contentSecurityPolicy(settings.connectTo) }
  const shown = consolePage(tokenRequired)
  return (request: Request, response: Response): boolean => {
    if (request.method !== "GET" && request.method !== "HEAD") return false
    const path = pathOf(request)
    if (path === "/") {
      send(request, response, shown, "no-cache", policy)
      return true
    }
    if (path === "/console/config.json") {
      const body = JSON.stringify({ services: settings.origins(requestHost(request)), onboardingForm })
      response.writeHead(200, { "content-type": "application/json", "cache-control": "no-store", "content-length": Buffer.byteLength(body) })
      if (request.method === "HEAD") response.end()
      else response.end(body)
      return true
    }
    if (path === "/console/console.css") {
      send(request, response, styles, "no-cache")
      return true
    }
    const script = path.startsWith("/console/") ? scriptNamed(path.slice("/console/".length)) : undefined
    if (script === undefined) return false
    // Revalidated each time (ETag): a rebuilt console is seen at once.
    send(request, response, script, "no-cache")
    return true
  }
}
