import { PGlite } from "@electric-sql/pglite"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { copyFile, mkdir, mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { basename, join } from "node:path"
import { clusterSource, templateCluster, templateFile, writeTemplate } from "../../src/services/embedded/EmbeddedTemplate.js"
import { initdbInChild } from "../../src/services/embedded/InitdbProcess.js"

/**
 * A new embedded database starts from the build's template (src/services/embedded/EmbeddedTemplate.ts)
 * instead of PGlite's initdb. It must be the cluster initdb would have made: the same catalog,
 * the same settings, and a database that opens and takes writes.
 */

let scratch: string | undefined
const scratchDir = Effect.promise(async () => (scratch ??= await mkdtemp(join(tmpdir(), "onboarding-template-"))))
afterAll(async () => {
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true })
})

/** The pid of a process that has exited: no build is at work under it. */
const exitedPid = () =>
  new Promise<number>((resolve) => {
    const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" })
    child.once("exit", () => resolve(child.pid ?? 0))
  })

/** What a cluster holds before anything is stored in it: its catalog and its settings. */
const describeCluster = (dir: string) =>
  Effect.promise(async () => {
    const db = await PGlite.create(dir)
    try {
      const objects = await db.query<{ kind: string; name: string }>(
        "select c.relkind::text as kind, n.nspname || '.' || c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace order by 2, 1"
      )
      const databases = await db.query<{ datname: string }>("select datname from pg_database order by 1")
      const settings = await db.query<{ name: string; setting: string }>(
        "select name, setting from pg_settings where source in ('configuration file', 'override') and name not in ('data_directory', 'config_file', 'hba_file', 'ident_file') order by 1"
      )
      await db.exec("create table written (id int primary key); insert into written values (1)")
      const written = await db.query<{ n: number }>("select count(*)::int as n from written")
      return { objects: objects.rows, databases: databases.rows, settings: settings.rows, written: written.rows[0]?.n }
    } finally {
      await db.close()
    }
  })

describe("the embedded database's template", () => {
  it.effect("is there after the build, named for the installed PGlite", () =>
    Effect.sync(() => {
      const file = templateFile()
      expect(file, "npm run build makes dist/embedded/pglite-<version>.tar.gz").toBeDefined()
      expect(basename(file ?? "")).toMatch(/^pglite-\d+\.\d+\.\d+.*\.tar\.gz$/)
    }))

  it.effect("makes the cluster initdb makes, copied or loaded: the same catalog and settings, and it opens and takes writes", () =>
    Effect.gen(function*() {
      const dir = yield* scratchDir
      const dump = templateFile()
      const cluster = templateCluster()
      expect(dump).toBeDefined()
      expect(cluster, "npm run build makes dist/embedded/pglite-<version>/").toBeDefined()
      yield* Effect.all([
        initdbInChild(join(dir, "from-cluster"), { kind: "cluster", path: cluster ?? "" }),
        initdbInChild(join(dir, "from-dump"), { kind: "dump", path: dump ?? "" }),
        initdbInChild(join(dir, "from-initdb"), { kind: "initdb" })
      ], { concurrency: 2 })
      const fromCluster = yield* describeCluster(join(dir, "from-cluster"))
      const fromDump = yield* describeCluster(join(dir, "from-dump"))
      const fromInitdb = yield* describeCluster(join(dir, "from-initdb"))
      expect(fromCluster.objects.length).toBeGreaterThan(100)
      expect(fromCluster.settings.length).toBeGreaterThan(0)
      expect(fromDump).toEqual(fromInitdb)
      expect(fromCluster).toEqual(fromInitdb)
      expect(fromCluster.written).toBe(1)
      // The copy took the files as they are: the template itself is never opened.
      expect(yield* Effect.promise(() => readdir(cluster ?? ""))).not.toContain("postmaster.pid")
    }), 180_000)

  it.effect("a build makes this version's cluster from its dump, keeps both, and removes another version's and a dead build's", () =>
    Effect.gen(function*() {
      const dir = join(yield* scratchDir, "templates")
      const current = templateFile()
      expect(current).toBeDefined()
      const name = basename(current ?? "")
      const clusterName = name.replace(/\.tar\.gz$/, "")
      const deadPid = yield* Effect.promise(() => exitedPid())
      const livePid = process.ppid
      yield* Effect.promise(async () => {
        await mkdir(join(dir, "pglite-0.0.1"), { recursive: true })
        await mkdir(join(dir, `${clusterName}.${deadPid}.partial`, "base"), { recursive: true })
        await mkdir(join(dir, `${clusterName}.${livePid}.partial`, "base"), { recursive: true })
        await copyFile(current ?? "", join(dir, name))
        await writeFile(join(dir, "pglite-0.0.1.tar.gz"), "an older PGlite's template")
        await writeFile(join(dir, "pglite-0.0.1", "PG_VERSION"), "an older PGlite's cluster")
      })
      expect(yield* Effect.promise(() => writeTemplate(dir))).toBe("made")
      // Another build still running keeps its partial; a dead one's goes.
      expect((yield* Effect.promise(() => readdir(dir))).sort()).toEqual(
        [clusterName, `${clusterName}.${livePid}.partial`, `${clusterName}.entries.json`, name].sort()
      )
      expect(templateFile(dir)).toBe(join(dir, name))
      expect(templateCluster(dir)).toBe(join(dir, clusterName))
      expect(clusterSource(dir)).toEqual({ kind: "cluster", path: join(dir, clusterName) })
      // Readable by a server running as another user than the build; writable by the build only.
      const modes = yield* Effect.promise(async () => ({
        file: (await stat(join(dir, clusterName, "PG_VERSION"))).mode & 0o777,
        directory: (await stat(join(dir, clusterName, "base"))).mode & 0o777
      }))
      expect(modes).toEqual({ file: 0o644, directory: 0o755 })
      expect(yield* Effect.promise(() => writeTemplate(dir))).toBe("kept")

      // An archive of dist that dropped an empty directory: the cluster is not used, the dump is,
      // and the next build makes the cluster again.
      yield* Effect.promise(() => rm(join(dir, clusterName, "pg_replslot"), { recursive: true }))
      expect(templateCluster(dir)).toBeUndefined()
      expect(clusterSource(dir)).toEqual({ kind: "dump", path: join(dir, name) })
      expect(yield* Effect.promise(() => writeTemplate(dir))).toBe("made")
      expect(templateCluster(dir)).toBe(join(dir, clusterName))
    }), 60_000)

  it.effect("none for this version: no template, so a new cluster is made by initdb", () =>
    Effect.gen(function*() {
      const dir = join(yield* scratchDir, "empty")
      expect(templateFile(dir)).toBeUndefined()
      expect(templateCluster(dir)).toBeUndefined()
      expect(clusterSource(dir)).toEqual({ kind: "initdb" })
    }))
})
