import type { Request, Response } from "../http/RequestHandler.js"
import { type Asset, asset } from "./PackageFiles.js"

export const javascript = "text/javascript; charset=utf-8"
export const css = "text/css; charset=utf-8"
export const html = "text/html; charset=utf-8"

/**
 * Scripts only from the port itself and never inline; styles inline too (the libraries set
 * element styles); images and fonts also as data: URLs (the libraries inline theirs); requests
 * only to the port itself, and to the other services' origins where a page calls them.
 */
export const contentSecurityPolicy = (otherOrigins: ReadonlyArray<string> = []) =>
  [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    ["connect-src 'self'", ...new Set(otherOrigins.filter((origin) => origin !== ""))].join(" "),
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'"
  ].join("; ")

/** Text as HTML shows it verbatim. */
export const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/**
 * What a page's script reads about its port, as a JSON data block (`#page-settings`): not
 * script, so the Content-Security-Policy (no inline script) allows it. `<` is escaped, so no
 * value can close the block.
 */
export const settingsBlock = (settings: Readonly<Record<string, unknown>>) =>
  `<script type="application/json" id="page-settings">${JSON.stringify(settings).replace(/</g, "\\u003c")}</script>`

/** An HTML page: its title, what goes in its head, its body. */
export const page = (title: string, head: string, body: string) =>
  asset(html, () =>
    `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
${head}
</head>
<body>
${body}
</body>
</html>
`)

/** Answers with a file: 304 when the browser has it (ETag), gzipped when it takes gzip. */
export const send = (request: Request, response: Response, file: Asset, caching: string, headers: Record<string, string> = {}) => {
  const etag = file.etag()
  const common = { etag, "cache-control": caching, "x-content-type-options": "nosniff", vary: "accept-encoding", ...headers }
  if (request.headers["if-none-match"] === etag) {
    response.writeHead(304, common)
    response.end()
    return
  }
  const gzip = /\bgzip\b/.test(String(request.headers["accept-encoding"] ?? ""))
  const body = gzip ? file.gzipped() : file.body()
  response.writeHead(200, {
    ...common,
    "content-type": file.contentType,
    "content-length": body.byteLength,
    ...(gzip ? { "content-encoding": "gzip" } : {})
  })
  if (request.method === "HEAD") response.end()
  else response.end(body)
}
