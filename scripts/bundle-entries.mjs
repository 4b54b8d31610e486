// Part of `npm run build`: the commands a person starts and waits for, `all` (the embedded default
// `npm start` runs) and `migrate`, each bundled from tsc's output in dist/main/entries into
// dist/main/<command>.js; the service commands' dist/main/<command>.js runs tsc's output as it is.
//
// Why bundle: Node loads an unbundled start as over a thousand ES modules (effect's Schema alone
// brings fast-check's), a large part of the embedded default's start (docs/benchmarks.md §8). One
// file loads in a fraction of that; the code is the same modules, tsc's output, unchanged.
//
// Why not the services: a bundle declares every module's top-level `const` as a `var` (esbuild
// does so by design, with no option), and V8 folds a module's constants into optimised code but
// not a variable's. Read through a variable, Effect's op codes and prototypes cost generic
// comparisons and allocations, more instructions on every call of a bundled service. A service
// process (PostgreSQL only) runs for days: what the bundle would take off its start is not worth
// that share of every call (both figures: docs/benchmarks.md §5, the bundling row).
//
// A module that needs the package's root finds it from `import.meta.url` by looking for the nearest
// package.json (src/services/database/PackageRoot.ts), which holds in a bundle as in dist/.
// PGlite stays a package: it reads its WebAssembly and data files beside its own module (and
// msgpackr, for its native extension).
// A build whose inputs are all older than the bundles leaves them as they are.
import { build } from "esbuild"
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../", import.meta.url))
const bundled = ["all", "migrate"]
const unbundled = ["org", "profile", "license", "workflow"]
const commands = [...bundled, ...unbundled]
const bundle = (command) => `${root}dist/main/${command}.js`
const manifest = `${root}dist/main/entries/bundles.json`

const upToDate = () => {
  if (!existsSync(manifest)) return false
  const { inputs } = JSON.parse(readFileSync(manifest, "utf8"))
  const oldestBundle = Math.min(...commands.map((command) => (existsSync(bundle(command)) ? statSync(bundle(command)).mtimeMs : 0)))
  // npm keeps a package's own file times, so an install is seen by the lock npm rewrites.
  const watched = [...inputs.filter((input) => !input.includes("node_modules/")), "node_modules/.package-lock.json", "package.json", "scripts/bundle-entries.mjs"]
  return watched.every((file) => existsSync(`${root}${file}`) && statSync(`${root}${file}`).mtimeMs < oldestBundle)
}

if (!upToDate()) {
  // Gone while the bundles are rewritten, so that a build killed midway is not taken for done.
  rmSync(manifest, { force: true })
  // Each build's chunks are named by their content: an earlier build's would stay beside them.
  for (const file of readdirSync(`${root}dist/main`)) {
    if (/^chunk-.*\.js(\.map)?$/.test(file)) rmSync(`${root}dist/main/${file}`)
  }
  const result = await build({
    absWorkingDir: root,
    entryPoints: bundled.map((command) => `dist/main/entries/${command}.js`),
    outdir: "dist/main",
    bundle: true,
    // A module imported on demand (the embedded database's) is a chunk of its own, and what it
    // shares with the commands another chunk: without splitting, esbuild wraps every module such an
    // import reaches (all of Effect's) in a lazy initialiser whose bindings are variables, which
    // cost every call more instructions still (docs/benchmarks.md §5, the bundling row). Chunks sit
    // beside the bundles, at their depth.
    splitting: true,
    chunkNames: "chunk-[hash]",
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: "linked",
    // msgpackr looks for its native extension beside its own module.
    external: ["@electric-sql/pglite", "msgpackr"],
    // The CommonJS packages inside (pg, protobufjs) call `require`, which an ES module lacks.
    banner: { js: `import { createRequire as __bundleRequire } from "node:module"; const require = __bundleRequire(import.meta.url);` },
    metafile: true,
    logLevel: "warning"
  })
  for (const command of unbundled) {
    writeFileSync(bundle(command), `// tsc's output, not bundled: see scripts/bundle-entries.mjs.\nimport "./entries/${command}.js"\n`)
  }
  const inputs = Object.keys(result.metafile.inputs).filter((input) => !input.startsWith("<"))
  writeFileSync(`${manifest}.partial`, JSON.stringify({ inputs }))
  renameSync(`${manifest}.partial`, manifest)
}
