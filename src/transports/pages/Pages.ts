import type { Request, Response } from "../http/PortListener.js"
import { pathOf } from "../http/Calls.js"
import { docsScript, graphiqlScript } from "./BrowserScripts.js"
import { type Asset, asset, packageFile } from "./PackageFiles.js"
import { contentSecurityPolicy, css, javascript, page, send } from "./PageResponses.js"

/**
 * What a port shows a person with a browser: GraphiQL at `GET /graphql` when the browser asks for
 * HTML (API clients never do; GraphQL-over-HTTP leaves such requests to the server), and the REST
 * reference at `GET /docs`, rendered by Swagger UI from the port's own `/openapi.json`. The pages
 * and their assets hold no data, so they are open like the probes; what they fetch goes through
 * the pipeline like any call, behind the token when there is one.
 */

/** Libraries' scripts and styles, each from its npm package, at `/assets/<name>`. */
const assets: ReadonlyMap<string, Asset> = new Map([
  ["swagger-ui.js", packageFile("swagger-ui-dist", "swagger-ui-bundle.js", javascript)],
  ["swagger-ui.css", packageFile("swagger-ui-dist", "swagger-ui.css", css)],
  ["react.js", packageFile("react", "umd/react.production.min.js", javascript)],
  ["react-dom.js", packageFile("react-dom", "umd/react-dom.production.min.js", javascript)],
  ["graphiql.js", packageFile("graphiql", "dist/index.umd.js", javascript)],
  ["graphiql.css", packageFile("graphiql", "dist/style.css", css)],
  ["docs.js", asset(javascript, () => docsScript)],
  ["graphiql-start.js", asset(javascript, () => graphiqlScript)]
])

const docsPage = page(
  "REST API reference",
  `<link rel="stylesheet" href="/assets/swagger-ui.css">
<style>
  body { margin: 0; font-family: system-ui, sans-serif; }
  #token-form { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; padding: .75rem 1rem; background: #f4f5f7; border-bottom: 1px solid #d0d4da; }
  #token-form input { flex: 1 1 14rem; min-width: 0; padding: .4rem; font: inherit; }
  #token-form button { padding: .4rem .9rem; font: inherit; }
</style>`,
  `<form id="token-form">
  <label for="token">API token (only if the server has API_TOKEN set; kept in this tab only)</label>
  <input id="token" name="token" type="password" autocomplete="off">
  <button type="submit">Use token</button>
</form>
<main id="docs"></main>
<script src="/assets/swagger-ui.js"></script>
<script src="/assets/docs.js"></script>`
)

const graphiqlPage = page(
  "GraphiQL",
  `<link rel="stylesheet" href="/assets/graphiql.css">
<style>body { margin: 0; } #graphiql { height: 100vh; }</style>`,
  `<div id="graphiql" role="main">Loading GraphiQL…</div>
<script src="/assets/react.js"></script>
<script src="/assets/react-dom.js"></script>
<script src="/assets/graphiql.js"></script>
<script src="/assets/graphiql-start.js"></script>`
)

/** The icon browsers ask every page's origin for, from Swagger UI's package (every page would log a 404 without one). */
const favicon = packageFile("swagger-ui-dist", "favicon-32x32.png", "image/png")

/** Whether a browser asks for a page: it lists text/html among what it accepts. */
const wantsHtml = (request: Request) => (request.headers.accept ?? "").includes("text/html")

/** The pipeline's step for pages: true when it answered. */
export const pages = (request: Request, response: Response): boolean => {
  if (request.method !== "GET" && request.method !== "HEAD") return false
  const path = pathOf(request)
  if (path.startsWith("/assets/")) {
    const file = assets.get(path.slice("/assets/".length))
    if (file === undefined) return false
    // Revalidated by ETag after a day: the files change only with the packages.
    send(request, response, file, "public, max-age=86400")
    return true
  }
  if (path === "/favicon.ico") {
    send(request, response, favicon, "public, max-age=86400")
    return true
  }
  const shown = path === "/docs" ? docsPage : path === "/graphql" && wantsHtml(request) ? graphiqlPage : undefined
  if (shown === undefined) return false
  send(request, response, shown, "no-cache", { "content-security-policy": contentSecurityPolicy() })
  return true
}
