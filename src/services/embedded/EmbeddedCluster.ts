import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { readdir, rename, rm, stat, unlink } from "node:fs/promises"
import { dirname, join, resolve } from "node:path"
import { errorCode } from "./DataDirLockFile.js"
import { fs, fsyncPath, fsyncTree } from "./Fsync.js"
import { endOrphanInitdb, initdbInChild, pidFileOf } from "./InitdbProcess.js"

/**
 * How a new embedded database comes into `DATA_DIR`, so that a start killed at any moment leaves
 * a directory the next start opens.
 *
 * `PG_VERSION` at the top of the directory is what says "a database is here", to PGlite as well
 * (without it, PGlite runs initdb and writes over whatever is there). PGlite writes a new cluster
 * file by file, `PG_VERSION` before its configuration files: a start killed in between left a
 * directory that said "database" and never opened. So a new cluster is made elsewhere and
 * `PG_VERSION` arrives last:
 *
 * 1. a child process creates it in `onboarding-initdb-<uuid>` (`creating`), a copy of the build's
 *    closed cluster or, without one, PGlite's (InitdbProcess.ts);
 * 2. every file and directory in it is fsynced, then it is renamed `onboarding-initdb.done`
 *    (`done`): from then on it is complete, as a fact of the file system;
 * 3. its entries are renamed up into `DATA_DIR` one by one, `PG_VERSION` last, each step fsynced,
 *    and the emptied `done` removed.
 *
 * The temporary directory is inside `DATA_DIR`, not beside it: `DATA_DIR` holds the lock file, so
 * nothing can be renamed over it; it is often a volume's mount point, where a directory beside it
 * is on another file system (rename fails) or cannot be written at all; inside, the lock covers
 * the whole creation.
 *
 * What a start finds, holding the lock (so no other start of ours is at work here, and a killed
 * start's initdb child died with it):
 * - `PG_VERSION` at the top: a database, an older version's created in place included. It is
 *   opened as it is; nothing in it is touched. A leftover `creating` or (empty) `done` is removed.
 * - no `PG_VERSION`: no database was ever opened here, so nothing here was ever acknowledged, and
 *   whatever of ours is here may be rebuilt. A `done` holding `PG_VERSION` is complete: its move
 *   is finished. Otherwise every `creating` is removed (an initdb cut short), as is any top-level
 *   entry named like one of the new cluster's (an older version's initdb, which wrote in place,
 *   cut short before `PG_VERSION`), and a cluster is created. Other entries (the lock, a volume's
 *   `lost+found`) are left alone.
 *
 * After step 3 the cluster is complete but empty; the migrations then run on the open database.
 * A kill during them is an ordinary crash of PostgreSQL: its WAL recovery undoes the transaction
 * that did not commit, and `migrate` applies, in one transaction with its bookkeeping row, what
 * that transaction would have.
 */

const versionFile = "PG_VERSION"
const creatingPrefix = "onboarding-initdb-"
const doneName = "onboarding-initdb.done"
const pidFile = "postmaster.pid"

const isCreating = (name: string) => name.startsWith(creatingPrefix) && name !== doneName

const remove = (path: string) => fs(() => rm(path, { recursive: true, force: true, maxRetries: 3 }))

/** Moves a complete `done` into `dir`, `PG_VERSION` last; safe to run again from any point. */
const moveIntoPlace = (dir: string) =>
  Effect.gen(function*() {
    const done = join(dir, doneName)
    const names = (yield* fs(() => readdir(done))).filter((name) => name !== versionFile)
    for (const name of names) {
      // Only an entry of a cluster that never held a `PG_VERSION` can be in the way (see above).
      yield* remove(join(dir, name))
      yield* fs(() => rename(join(done, name), join(dir, name)))
    }
    yield* fsyncPath(done)
    yield* fsyncPath(dir)
    yield* fs(() => rename(join(done, versionFile), join(dir, versionFile)))
    yield* fsyncPath(dir)
    yield* remove(done)
    yield* fsyncPath(dir)
  })

/** Steps 1 and 2: a complete cluster in `done`. */
const createDone = (dir: string) =>
  Effect.gen(function*() {
    const creating = join(dir, `${creatingPrefix}${randomUUID()}`)
    yield* initdbInChild(creating)
    yield* fsyncTree(creating)
    yield* fs(() => rename(creating, join(dir, doneName)))
    yield* fsyncPath(dir)
    // `DATA_DIR` itself may have been created by this start: its own entry is made durable too
    // (best effort: the parent may not be readable).
    yield* Effect.ignore(fsyncPath(dirname(dir)))
  })

const exists = (path: string) =>
  fs(() => stat(path)).pipe(Effect.as(true), Effect.catchAll(() => Effect.succeed(false)))

/**
 * PostgreSQL creates `postmaster.pid`, then writes it: a kill in between leaves it empty, and
 * PostgreSQL refuses to start on an empty one ("lock file is empty") until someone removes it.
 * Under our lock no other server of ours is starting here, so an empty one is a dead start's.
 * (A written one is a dead server's: every PGlite has the same pid, and takes it as its own.)
 */
const removeEmptyPidFile = (dir: string) =>
  fs(() => stat(join(dir, pidFile))).pipe(
    Effect.flatMap((found) => found.size === 0 ? fs(() => unlink(join(dir, pidFile))) : Effect.void),
    Effect.catchIf((error) => errorCode(error) === "ENOENT", () => Effect.void)
  )

/**
 * A killed start's initdb child still at work on one of the `creating` directories (its pid file
 * beside it) is ended before anything here is touched: it would write on into a directory this
 * start removes, for seconds of CPU, with nobody to read what it makes.
 */
const endOrphans = (dir: string, creating: ReadonlyArray<string>) =>
  Effect.forEach(creating.filter((name) => !name.endsWith(".pid")), (name) =>
    endOrphanInitdb(pidFileOf(join(dir, name)), join(dir, name)).pipe(
      Effect.tap((pid) =>
        pid === undefined ? Effect.void : Effect.logWarning(
          `database: ended the database creation (pid ${pid}) that a killed start left running in DATA_DIR`
        )
      )
    ), { discard: true })

/**
 * Makes `dataDir` (locked by this process) hold a complete cluster, creating one or finishing or
 * rebuilding what a killed start left (see above); one warning line says when it did the latter.
 */
export const readyCluster = (dataDir: string): Effect.Effect<void, unknown> =>
  Effect.gen(function*() {
    const dir = resolve(dataDir)
    const entries = yield* fs(() => readdir(dir))
    const creating = entries.filter(isCreating)
    yield* endOrphans(dir, creating)
    yield* Effect.forEach(creating, (name) => remove(join(dir, name)), { discard: true })

    if (entries.includes(versionFile)) {
      if (entries.includes(doneName)) yield* remove(join(dir, doneName))
      return yield* removeEmptyPidFile(dir)
    }

    if (entries.includes(doneName) && (yield* exists(join(dir, doneName, versionFile)))) {
      yield* moveIntoPlace(dir)
      return yield* Effect.logWarning(
        `database: DATA_DIR=${dataDir} held a new database complete but not yet in place (a start was killed ` +
          `while moving it): moved it into place`
      )
    }

    if (entries.includes(doneName)) yield* remove(join(dir, doneName))
    yield* createDone(dir)
    const clusterNames = new Set(yield* fs(() => readdir(join(dir, doneName))))
    const leftovers = entries.filter((name) => clusterNames.has(name))
    yield* moveIntoPlace(dir)
    if (creating.length > 0 || leftovers.length > 0) {
      yield* Effect.logWarning(
        `database: DATA_DIR=${dataDir} held a half-made database (a start was killed while creating it; it held ` +
          `no data): removed ${creating.length + leftovers.length} entries of it and created the database again`
      )
    }
  })
