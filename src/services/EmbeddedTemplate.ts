import { PGlite } from "@electric-sql/pglite"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { mkdir, open, rename, rm } from "node:fs/promises"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

/**
 * A new embedded cluster, made once and copied. PGlite's initdb runs PostgreSQL's bootstrap in
 * WebAssembly: 2–5 s of CPU for a cluster that is, byte for byte, the same every time for one
 * PGlite version. So the build makes one (`npm run build` runs `writeTemplate`), dumps it with
 * PGlite's own `dumpDataDir`, and every new database — `DATA_DIR=memory://`, or a new directory's
 * cluster (`EmbeddedCluster.ts`) — starts from it with PGlite's `loadDataDir`: about 1 s instead.
 *
 * The file carries the PGlite version in its name: a template made by another version is never
 * loaded (a release may change the catalog PGlite's initdb writes), and without one for this
 * version a new cluster is made by initdb, as before. Clusters made from it share PostgreSQL's
 * system identifier, which only replication reads, and PGlite has none.
 */

/** The package root (from `src/services` and `dist/services` alike). */
const packageRoot = fileURLToPath(new URL("../../", import.meta.url))
const templateDir = join(packageRoot, "dist", "embedded")

/** The installed PGlite's version, read from its package.json (the package does not export that file). */
const pgliteVersion = (): string => {
  let dir = dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite"))
  while (!existsSync(join(dir, "package.json"))) dir = dirname(dir)
  const manifest: { readonly version?: unknown } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))
  return String(manifest.version)
}

const templateName = () => `pglite-${pgliteVersion()}.tar.gz`

/** The template for the installed PGlite, if the build made one. */
export const templateFile = (dir = templateDir): string | undefined => {
  const file = join(dir, templateName())
  return existsSync(file) ? file : undefined
}

/** The template as `loadDataDir` takes it. */
export const templateBlob = (file: string) => new Blob([readFileSync(file)], { type: "application/x-gzip" })

/**
 * Makes the template for the installed PGlite unless it is there, and removes other versions'.
 * Written beside and renamed into place, so a build killed midway leaves no partial template.
 */
export const writeTemplate = async (dir = templateDir): Promise<"kept" | "made"> => {
  const name = templateName()
  await mkdir(dir, { recursive: true })
  for (const other of readdirSync(dir).filter((entry) => entry !== name)) {
    await rm(join(dir, other), { force: true })
  }
  if (existsSync(join(dir, name))) return "kept"
  const db = await PGlite.create()
  const dump = await db.dumpDataDir("gzip")
  await db.close()
  const partial = join(dir, `${name}.${process.pid}.partial`)
  const handle = await open(partial, "w")
  try {
    await handle.writeFile(Buffer.from(await dump.arrayBuffer()))
    await handle.sync()
  } finally {
    await handle.close()
  }
  await rename(partial, join(dir, name))
  return "made"
}
