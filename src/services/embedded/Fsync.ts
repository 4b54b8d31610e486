import { Effect } from "effect"
import { open, readdir } from "node:fs/promises"
import { join } from "node:path"
import { errorCode } from "./DataDirLockFile.js"

/** A promise of the file system as an Effect, its rejection the error as it came. */
export const fs = <A>(operation: () => Promise<A>) => Effect.tryPromise({ try: operation, catch: (error) => error })

/**
 * fsync of a file or a directory (a directory's fsync makes its entries, renames included,
 * durable). Where a directory cannot be opened or fsynced (Windows: EISDIR, EPERM), there is
 * nothing more to be had, and that is not a failure.
 */
export const fsyncPath = (path: string) =>
  fs(async () => {
    const handle = await open(path, "r")
    try {
      await handle.sync()
    } finally {
      await handle.close()
    }
  }).pipe(
    Effect.catchIf(
      (error) => ["EISDIR", "EPERM", "EINVAL"].includes(errorCode(error) ?? ""),
      () => Effect.void
    )
  )

/** Every file and directory under `root`, `root` last: a cluster PGlite wrote without fsync. */
export const fsyncTree = (root: string): Effect.Effect<void, unknown> =>
  Effect.gen(function*() {
    const entries = yield* fs(() => readdir(root, { withFileTypes: true }))
    yield* Effect.forEach(
      entries,
      (entry) => entry.isDirectory() ? fsyncTree(join(root, entry.name)) : fsyncPath(join(root, entry.name)),
      { concurrency: 16, discard: true }
    )
    yield* fsyncPath(root)
  })
