import { existsSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

/**
 * The package's root, where `migrations/` and `dist/` are: the nearest folder above this module
 * that holds a package.json. Found rather than counted in `../`, because this module runs at
 * different depths: in `src/services/database`, in `dist/services/database`, and inlined into the
 * bundles in `dist/main` (scripts/bundle-entries.mjs).
 */
export const packageRoot: string = (() => {
  const here = fileURLToPath(import.meta.url)
  for (let dir = dirname(here); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir
    if (dirname(dir) === dir) throw new Error(`no package.json in any folder above ${here}`)
  }
})()
