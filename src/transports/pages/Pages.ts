import type * as HttpApi from "@effect/platform/HttpApi"
import * as OpenApi from "@effect/platform/OpenApi"
import { Context, Option } from "effect"
import type { GraphqlApi } from "../graphql/GraphqlApi.js"
import { exampleQueryOf } from "../graphql/ExampleQueries.js"
import type { Request, Response } from "../http/RequestHandler.js"
import { pathOf } from "../http/Calls.js"
import { securitySchemes } from "../rest/RestApp.js"
import { docsScript, graphiqlScript } from "./BrowserScripts.js"
import { type Asset, asset, packageFile } from "./PackageFiles.js"
import { contentSecurityPolicy, css, javascript, page, send, settingsBlock } from "./PageResponses.js"

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

/** What the pages of one port show: its service's name, whether calls need the token, GraphiQL's example. */
export interface PortPageSettings {
  /** The port's service as people call it ("Org service"): its OpenAPI document's title. */
  readonly service: string
  /** The query GraphiQL opens with (graphql/ExampleQueries.ts). */
  readonly exampleQuery: string
  /** Whether the server has API_TOKEN set: the pages then say where the token goes. */
  readonly tokenRequired: boolean
}

/** /docs: the port's REST reference (and what to do when the document waits for the token: BrowserScripts.ts). */
const docsPage = (settings: PortPageSettings) =>
  page(
    `${settings.service} — REST API reference`,
    `<link rel="stylesheet" href="/assets/swagger-ui.css">
<style>body { margin: 0; font-family: system-ui, sans-serif; }</style>`,
    `${settingsBlock({ service: settings.service, tokenRequired: settings.tokenRequired, securitySchemes })}
<main id="docs"></main>
<script src="/assets/swagger-ui.js"></script>
<script src="/assets/docs.js"></script>`
  )

/** /graphql: GraphiQL, named after the port's service; with the token required, a notice of where it goes. */
const graphiqlPage = (settings: PortPageSettings) =>
  page(
    `${settings.service} — GraphiQL`,
    `<link rel="stylesheet" href="/assets/graphiql.css">
<style>
  body { margin: 0; height: 100vh; display: flex; flex-direction: column; font-family: system-ui, sans-serif; }
  #graphiql { flex: 1; min-height: 0; }
  #token-notice { margin: 0; padding: .5rem 1rem; background: #fff8e1; border-bottom: 1px solid #e0c060; }
</style>`,
    `${settingsBlock({ service: settings.service, exampleQuery: settings.exampleQuery, tokenRequired: settings.tokenRequired })}
${
      settings.tokenRequired
        ? `<p id="token-notice" role="note">This server needs its API token. In the <strong>Headers</strong> tab below the query, replace <code>&lt;API_TOKEN&gt;</code> in <code>{"Authorization": "Bearer &lt;API_TOKEN&gt;"}</code> with it, then run the query. If the Docs pane is empty, re-fetch the schema with ↻ at the bottom left.</p>\n`
        : ""
    }<div id="graphiql" role="main">Loading GraphiQL…</div>
<script src="/assets/react.js"></script>
<script src="/assets/react-dom.js"></script>
<script src="/assets/graphiql.js"></script>
<script src="/assets/graphiql-start.js"></script>`
  )

/** The icon browsers ask every page's origin for, from Swagger UI's package (every page would log a 404 without one). */
const favicon = packageFile("swagger-ui-dist", "favicon-32x32.png", "image/png")

/** Whether a browser asks for a page: it lists text/html among what it accepts. */
const wantsHtml = (request: Request) => (request.headers.accept ?? "").includes("text/html")

/**
 * The pipeline's step for the pages of one port: true when it answered. Its two pages are made
 * once, from the port's settings.
 */
export const portPages = (settings: PortPageSettings) => {
  const docs = docsPage(settings)
  const graphiql = graphiqlPage(settings)
  return (request: Request, response: Response): boolean => {
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
    const shown = path === "/docs" ? docs : path === "/graphql" && wantsHtml(request) ? graphiql : undefined
    if (shown === undefined) return false
    send(request, response, shown, "no-cache", { "content-security-policy": contentSecurityPolicy() })
    return true
  }
}

/**
 * The pages of a port serving `api`: named after its service (the title of its OpenAPI
 * document), GraphiQL on the port's example query, and telling where the token goes when the
 * server has one (`apiToken`, API_TOKEN).
 */
export const pagesFor = (
  api: { readonly rest: { readonly api: HttpApi.HttpApi.Any }; readonly graphql: GraphqlApi<unknown> },
  apiToken: Option.Option<unknown>
) =>
  portPages({
    service: Context.getOrElse((api.rest.api as HttpApi.HttpApi.AnyWithProps).annotations, OpenApi.Title, () => "API"),
    exampleQuery: exampleQueryOf(api.graphql),
    tokenRequired: Option.isSome(apiToken)
  })
