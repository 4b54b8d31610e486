import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { gzipSync } from "node:zlib"

const require = createRequire(import.meta.url)

/** A file served to browsers: its bytes, a gzip of them, and an ETag. Read when first asked for. */
export interface Asset {
  readonly contentType: string
  readonly body: () => Buffer
  readonly gzipped: () => Buffer
  readonly etag: () => string
}

const once = <A>(make: () => A): () => A => {
  let made: { value: A } | undefined
  return () => (made ??= { value: make() }).value
}

/** An asset from bytes made on demand (a page, a script of ours). */
export const asset = (contentType: string, make: () => string | Buffer): Asset => {
  const body = once(() => {
    const made = make()
    return typeof made === "string" ? Buffer.from(made) : made
  })
  return {
    contentType,
    body,
    gzipped: once(() => gzipSync(body(), { level: 9 })),
    etag: once(() => `"${createHash("sha256").update(body()).digest("base64url").slice(0, 22)}"`)
  }
}

/**
 * A file shipped inside an npm package (`graphiql`, `dist/index.umd.js`): everything a browser
 * loads comes from the packages installed with the project, never from a CDN, so the pages work
 * with no network. Reached from the package's own directory: some packages export no such path.
 */
export const packageFile = (packageName: string, path: string, contentType: string): Asset =>
  asset(contentType, () => readFileSync(join(dirname(require.resolve(`${packageName}/package.json`)), path)))
