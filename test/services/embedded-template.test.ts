import { PGlite } from "@electric-sql/pglite"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { basename, join } from "node:path"
import { templateFile, writeTemplate } from "../../src/services/EmbeddedTemplate.js"
import { initdbInChild } from "../../src/services/InitdbProcess.js"

/**
 * A new embedded database starts from the build's template (src/services/EmbeddedTemplate.ts)
 * instead of PGlite's initdb. It must be the cluster initdb would have made: the same catalog,
 * the same settings, and a database that opens and takes writes.
 */

let scratch: string | undefined
const scratchDir = Effect.promise(async () => (scratch ??= await mkdtemp(join(tmpdir(), "onboarding-template-"))))
afterAll(async () => {
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true })
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

  it.effect("makes the cluster initdb makes: the same catalog and settings, and it opens and takes writes", () =>
    Effect.gen(function*() {
      const dir = yield* scratchDir
      const template = templateFile()
      expect(template).toBeDefined()
      yield* Effect.all([
        initdbInChild(join(dir, "from-template"), template),
        initdbInChild(join(dir, "from-initdb"), undefined)
      ], { concurrency: 2 })
      const fromTemplate = yield* describeCluster(join(dir, "from-template"))
      const fromInitdb = yield* describeCluster(join(dir, "from-initdb"))
      expect(fromTemplate.objects.length).toBeGreaterThan(100)
      expect(fromTemplate.settings.length).toBeGreaterThan(0)
      expect(fromTemplate).toEqual(fromInitdb)
      expect(fromTemplate.written).toBe(1)
    }), 180_000)

  it.effect("a build keeps this version's template and removes another version's", () =>
    Effect.gen(function*() {
      const dir = join(yield* scratchDir, "templates")
      const current = templateFile()
      expect(current).toBeDefined()
      const name = basename(current ?? "")
      yield* Effect.promise(async () => {
        await mkdir(dir, { recursive: true })
        await copyFile(current ?? "", join(dir, name))
        await writeFile(join(dir, "pglite-0.0.1.tar.gz"), "an older PGlite's template")
      })
      expect(yield* Effect.promise(() => writeTemplate(dir))).toBe("kept")
      expect(yield* Effect.promise(() => readdir(dir))).toEqual([name])
      expect(templateFile(dir)).toBe(join(dir, name))
    }))

  it.effect("none for this version: no template, so a new cluster is made by initdb", () =>
    Effect.gen(function*() {
      const dir = join(yield* scratchDir, "empty")
      expect(templateFile(dir)).toBeUndefined()
    }))
})
