import { PGlite } from "@electric-sql/pglite"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Logger, LogLevel } from "effect"
import { spawn } from "node:child_process"
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { openEmbeddedDatabase } from "../../src/services/embedded/EmbeddedPostgres.js"
import { initdbInChild } from "../../src/services/embedded/InitdbProcess.js"

/**
 * The states a start killed while it creates the embedded database can leave in DATA_DIR (see
 * src/services/embedded/EmbeddedCluster.ts), each made here from a real cluster, and what the next start
 * does with them: it always opens, never touches a directory that holds a database, and says with
 * one warning when it rebuilt or finished what a killed start left. The kills themselves, at
 * these points, are test/reliability/first-start.slow.test.ts.
 */

const temporaryDirectory = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "onboarding-cluster-"))),
  (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
)

/** One real cluster, made once by the same child process a first start uses, copied into each case. */
let template: Promise<string> | undefined
const cluster = Effect.promise(() => {
  template ??= mkdtemp(join(tmpdir(), "onboarding-cluster-template-")).then(async (dir) => {
    await Effect.runPromise(initdbInChild(join(dir, "cluster")))
    return join(dir, "cluster")
  })
  return template
})

afterAll(async () => {
  if (template !== undefined) await rm(join(await template, ".."), { recursive: true, force: true })
})

const copyCluster = (to: string, except: ReadonlyArray<string> = []) =>
  Effect.gen(function*() {
    const from = yield* cluster
    const skipped = new Set(except.map((name) => join(from, name)))
    yield* Effect.promise(() => cp(from, to, { recursive: true, filter: (source) => !skipped.has(source) }))
  })

const names = (dir: string) => Effect.promise(() => readdir(dir).then((entries) => entries.sort()))

/** Opens `dir` as a start does; the warnings it logged, and the count of a table it can read. */
const start = (dir: string) =>
  Effect.gen(function*() {
    const warnings: Array<string> = []
    const collect = Logger.make(({ logLevel, message }) => {
      if (LogLevel.greaterThanEqual(logLevel, LogLevel.Warning)) {
        warnings.push(Array.isArray(message) ? message.join(" ") : String(message))
      }
    })
    const classes = yield* Effect.scoped(
      openEmbeddedDatabase(dir).pipe(
        Effect.flatMap((db) => Effect.promise(() => db.query<{ n: number }>("select count(*)::int as n from pg_class"))),
        Effect.map((result) => result.rows[0]!.n)
      )
    ).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, collect)))
    return { warnings, classes, left: (yield* names(dir)).filter((name) => name.startsWith("onboarding-initdb")) }
  })

const clusterEntries = Effect.flatMap(cluster, names)

/** A process that waits, with `argument` on its command line; killed when the scope closes. */
const idleProcess = (argument: string) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1 << 30)", argument], { stdio: "ignore" })
      const ended = new Promise<string | null>((done) => child.once("exit", (_, signal) => done(signal)))
      return Object.assign(child, { ended })
    }),
    (child) => Effect.sync(() => child.kill("SIGKILL"))
  )

describe("what a start does with the data directory a killed first start left", () => {
  it.live(
    "initdb cut short, and an older version's initdb cut short in place before PG_VERSION: " +
      "removed and created again, with one warning; a volume's lost+found left alone",
    () =>
      Effect.gen(function*() {
        const dir = yield* temporaryDirectory
        // A child killed before it wrote the configuration files.
        yield* copyCluster(join(dir, "onboarding-initdb-0b7f1f2e-1d0f-4c53-9a3e-2c1f4a5b6c7d"), [
          "postgresql.conf",
          "postgresql.auto.conf",
          "pg_hba.conf",
          "pg_ident.conf"
        ])
        // The older version wrote the cluster straight into DATA_DIR, pg_wal and global first.
        const entries = yield* clusterEntries
        yield* copyCluster(dir, entries.filter((name) => !["pg_wal", "global"].includes(name)))
        yield* Effect.promise(() => mkdir(join(dir, "lost+found")))
        yield* Effect.promise(() => writeFile(join(dir, "lost+found", "#1234"), "the file system's own"))
        const opened = yield* start(dir)
        expect(opened.classes).toBeGreaterThan(0)
        expect(opened.left).toEqual([])
        expect(opened.warnings).toEqual([
          `database: DATA_DIR=${dir} held a half-made database (a start was killed while creating it; it held no data): ` +
          `removed 3 entries of it and created the database again`
        ])
        expect(yield* names(dir)).toEqual([...entries, "lost+found"].sort())
        expect(yield* Effect.promise(() => readFile(join(dir, "lost+found", "#1234"), "utf8"))).toBe("the file system's own")
      }).pipe(Effect.scoped),
    // The first case also makes the template cluster: two initdbs.
    120_000
  )

  it.live("complete, killed before any of it moved, or halfway through the move: the move is finished, with one warning", () =>
    Effect.gen(function*() {
      const entries = (yield* clusterEntries).filter((name) => name !== "PG_VERSION")
      for (const moved of [0, Math.floor(entries.length / 2)]) {
        const dir = yield* temporaryDirectory
        yield* copyCluster(join(dir, "onboarding-initdb.done"))
        for (const name of entries.slice(0, moved)) {
          yield* Effect.promise(() => rename(join(dir, "onboarding-initdb.done", name), join(dir, name)))
        }
        const opened = yield* start(dir)
        expect(opened.classes).toBeGreaterThan(0)
        expect(opened.left).toEqual([])
        expect(opened.warnings).toEqual([
          `database: DATA_DIR=${dir} held a new database complete but not yet in place (a start was killed while ` +
          `moving it): moved it into place`
        ])
      }
    }).pipe(Effect.scoped), 60_000)

  it.live("killed after PG_VERSION moved, before the emptied directory was removed: opened, the directory removed, no warning", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDirectory
      yield* copyCluster(dir)
      yield* Effect.promise(() => mkdir(join(dir, "onboarding-initdb.done")))
      const opened = yield* start(dir)
      expect(opened.classes).toBeGreaterThan(0)
      expect(opened.left).toEqual([])
      expect(opened.warnings).toEqual([])
    }).pipe(Effect.scoped), 60_000)

  it.live("an older version's complete directory, created in place and holding data: opened as it is, data kept, no warning", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDirectory
      // What the older version left: the cluster written in place, then opened and written to.
      yield* copyCluster(dir)
      const old = yield* Effect.promise(() => PGlite.create(dir))
      yield* Effect.promise(() => old.exec("create table kept (note text); insert into kept values ('acknowledged')"))
      yield* Effect.promise(() => old.close())
      const before = yield* names(dir)
      const opened = yield* Effect.scoped(
        openEmbeddedDatabase(dir).pipe(Effect.flatMap((db) => Effect.promise(() => db.query<{ note: string }>("select note from kept"))))
      )
      expect(opened.rows).toEqual([{ note: "acknowledged" }])
      expect(yield* names(dir)).toEqual(before)
    }).pipe(Effect.scoped), 60_000)

  it.live(
    "a killed start's initdb still at work, its pid file beside it: ended before the directory is touched; " +
      "a pid file naming a process that is not that initdb leaves the process alone",
    () =>
      Effect.gen(function*() {
        const dir = yield* temporaryDirectory
        const creating = join(dir, "onboarding-initdb-5d1c2f5e-8a7b-4c3d-9e2f-1a2b3c4d5e6f")
        yield* Effect.promise(() => mkdir(creating))
        // What the system shows of the orphan: a process with that directory on its command line.
        const orphan = yield* idleProcess(creating)
        yield* Effect.promise(() => writeFile(`${creating}.pid`, String(orphan.pid)))
        // And a pid file of another directory naming a process that is not its initdb (a reused pid).
        const stranger = yield* idleProcess(join(dir, "elsewhere"))
        const strangersFile = join(dir, "onboarding-initdb-00000000-0000-4000-8000-000000000000")
        yield* Effect.promise(() => writeFile(`${strangersFile}.pid`, String(stranger.pid)))
        const opened = yield* start(dir)
        expect({
          orphanEnded: yield* Effect.promise(() => orphan.ended),
          strangerRunning: stranger.exitCode === null && stranger.signalCode === null,
          classes: opened.classes > 0,
          left: opened.left
        }).toEqual({ orphanEnded: "SIGKILL", strangerRunning: true, classes: true, left: [] })
        expect(opened.warnings).toEqual([
          `database: ended the database creation (pid ${orphan.pid}) that a killed start left running in DATA_DIR`,
          `database: DATA_DIR=${dir} held a half-made database (a start was killed while creating it; it held no data): ` +
          // the directory being created and the two pid files
          `removed 3 entries of it and created the database again`
        ])
      }).pipe(Effect.scoped),
    60_000
  )

  it.live("an empty postmaster.pid (a start killed between creating and writing it): removed, the database opens", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDirectory
      yield* copyCluster(dir)
      yield* Effect.promise(() => writeFile(join(dir, "postmaster.pid"), ""))
      const opened = yield* start(dir)
      expect(opened.classes).toBeGreaterThan(0)
      expect(opened.warnings).toEqual([])
    }).pipe(Effect.scoped), 60_000)
})
