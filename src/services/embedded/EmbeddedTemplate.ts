import { PGlite } from "@electric-sql/pglite"
import { Effect } from "effect"
import { chmodSync, existsSync, readdirSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { mkdir, open, rename, rm } from "node:fs/promises"
import { dirname, join } from "node:path"
import { errorCode } from "./DataDirLockFile.js"
import { packageRoot } from "../database/PackageRoot.js"
import { fsyncTree } from "./Fsync.js"

/**
 * A new embedded cluster, made once and copied. PGlite's initdb runs PostgreSQL's whole bootstrap
 * in WebAssembly, for a cluster that is, byte for byte, the same every time for one PGlite
 * version. So the build makes one (`npm run build` runs `writeTemplate`) and keeps it twice:
 * dumped with PGlite's own `dumpDataDir`, which `DATA_DIR=memory://` loads with `loadDataDir`; and
 * loaded from that dump into a directory and shut down, whose files a new directory's cluster
 * (`EmbeddedCluster.ts`) copies. Loading the dump costs a PGlite start and stop; copying its
 * result costs only the files' writes (both timed in docs/benchmarks.md §8).
 *
 * Both carry the PGlite version in their names: a template made by another version is never
 * loaded (a release may change the catalog PGlite's initdb writes), and without one for this
 * version a new cluster is made by initdb, the slow way. Clusters made from it share PostgreSQL's
 * system identifier, which only replication reads, and PGlite has none.
 */

const templateDir = join(packageRoot, "dist", "embedded")

/**
 * The installed PGlite's version, read from its package.json (the package does not export that
 * file) once: every template name below is made from it.
 */
let installedVersion: string | undefined
const pgliteVersion = (): string => {
  if (installedVersion !== undefined) return installedVersion
  let dir = dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite"))
  while (!existsSync(join(dir, "package.json"))) dir = dirname(dir)
  const manifest: { readonly version?: unknown } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))
  installedVersion = String(manifest.version)
  return installedVersion
}

const templateName = () => `pglite-${pgliteVersion()}.tar.gz`
const clusterName = () => `pglite-${pgliteVersion()}`
/** The cluster's entries, listed by the build once the cluster is in place. */
const entriesName = () => `pglite-${pgliteVersion()}.entries.json`

/** The template for the installed PGlite, if the build made one. */
export const templateFile = (dir = templateDir): string | undefined => {
  const file = join(dir, templateName())
  return existsSync(file) ? file : undefined
}

/**
 * The template as a closed cluster's directory, if the build made one and every entry it listed is
 * still there: a copy or an archive of `dist` may drop the cluster's empty directories, and
 * PostgreSQL will not start without them.
 */
export const templateCluster = (dir = templateDir): string | undefined => {
  const cluster = join(dir, clusterName())
  let listed: unknown
  try {
    listed = JSON.parse(readFileSync(join(dir, entriesName()), "utf8"))
  } catch {
    return undefined
  }
  const complete = Array.isArray(listed) && listed.includes("PG_VERSION") &&
    listed.every((entry) => typeof entry === "string" && existsSync(join(cluster, entry)))
  return complete ? cluster : undefined
}

/** What a new directory's cluster is made from: the closed cluster, the dump, or (neither) initdb. */
export type ClusterSource =
  | { readonly kind: "cluster"; readonly path: string }
  | { readonly kind: "dump"; readonly path: string }
  | { readonly kind: "initdb" }

export const clusterSource = (dir = templateDir): ClusterSource => {
  const cluster = templateCluster(dir)
  if (cluster !== undefined) return { kind: "cluster", path: cluster }
  const dump = templateFile(dir)
  return dump === undefined ? { kind: "initdb" } : { kind: "dump", path: dump }
}

/** The template as `loadDataDir` takes it. */
export const templateBlob = (file: string) => new Blob([readFileSync(file)], { type: "application/x-gzip" })

/**
 * Makes the template for the installed PGlite, the dump and then the cluster, unless they are
 * there, and removes anything else (other versions', a killed build's partial ones). Each is
 * written beside and renamed into place, so a build killed midway leaves no partial template.
 */
export const writeTemplate = async (dir = templateDir): Promise<"kept" | "made"> => {
  const name = templateName()
  await mkdir(dir, { recursive: true })
  const ours = [name, clusterName(), entriesName()]
  for (const other of readdirSync(dir).filter((entry) => !ours.includes(entry) && !anotherBuildsPartial(entry))) {
    await rm(join(dir, other), { recursive: true, force: true })
  }
  const dumpMade = await writeDump(dir, name)
  if (templateCluster(dir) !== undefined) return dumpMade
  await rm(join(dir, entriesName()), { force: true })
  await rm(join(dir, clusterName()), { recursive: true, force: true })
  const partial = join(dir, `${clusterName()}.${process.pid}.partial`)
  const db = await PGlite.create(partial, { loadDataDir: templateBlob(join(dir, name)) })
  await db.close()
  const entries = readableByAll(partial)
  // PGlite writes without fsync; every new directory's cluster will be copied from this one.
  await Effect.runPromise(fsyncTree(partial))
  await rename(partial, join(dir, clusterName()))
  await writeDurably(dir, entriesName(), Buffer.from(JSON.stringify(entries)))
  return "made"
}

/**
 * Every entry under `root`, relative to it, each made readable by all and writable by its owner
 * only: PGlite leaves files 0666 and one 0600, and the server may run as another user than the
 * build. Copies keep these modes.
 */
const readableByAll = (root: string, at = ""): Array<string> =>
  readdirSync(join(root, at), { withFileTypes: true }).flatMap((entry) => {
    const path = join(at, entry.name)
    chmodSync(join(root, path), entry.isDirectory() ? 0o755 : 0o644)
    return entry.isDirectory() ? [path, ...readableByAll(root, path)] : [path]
  })

/** A build still at work beside this one (`npm start` and `npm test` both build first) keeps its partial. */
const anotherBuildsPartial = (entry: string) => {
  const pid = Number(/\.(\d+)\.partial$/.exec(entry)?.[1])
  if (!Number.isSafeInteger(pid) || pid === process.pid) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return errorCode(error) === "EPERM"
  }
}

const writeDump = async (dir: string, name: string): Promise<"kept" | "made"> => {
  if (existsSync(join(dir, name))) return "kept"
  const db = await PGlite.create()
  const dump = await db.dumpDataDir("gzip")
  await db.close()
  await writeDurably(dir, name, Buffer.from(await dump.arrayBuffer()))
  return "made"
}

/** Written beside, fsynced and renamed into place. */
const writeDurably = async (dir: string, name: string, content: Buffer) => {
  const partial = join(dir, `${name}.${process.pid}.partial`)
  const handle = await open(partial, "w")
  try {
    await handle.writeFile(content)
    await handle.sync()
  } finally {
    await handle.close()
  }
  await rename(partial, join(dir, name))
}
