import { existsSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

/** The project's root: the nearest folder up with a package.json (from `bench/` or `dist/bench/bench/`). */
const projectRoot = (): string => {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir
    if (dirname(dir) === dir) throw new Error("no package.json above bench/NpmStart")
  }
}

/**
 * What `npm start` runs, read from package.json so that a measurement of the embedded default
 * carries its environment and Node flags too: the script is `[NAME=value ...] exec node <flags> <file>`.
 */
export const npmStartCommand = () => {
  const root = projectRoot()
  const script = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: { start: string } }).scripts.start
  const [assignments = "", command = ""] = script.split(/(?:^| )exec node /)
  const env = Object.fromEntries(
    assignments.split(" ").filter((word) => word !== "").map((word) => {
      const [name = "", value] = word.split("=", 2)
      if (!/^[A-Z_][A-Z0-9_]*$/.test(name) || value === undefined) throw new Error(`npm start's script sets no variable by ${word}: ${script}`)
      return [name, value]
    })
  )
  const args = command.split(" ")
  const file = args.at(-1)
  if (file === undefined || !file.endsWith(".js")) {
    throw new Error(`npm start's script is not \`[NAME=value ...] exec node [flags] <file>.js\`: ${script}`)
  }
  return { script, env, nodeArgs: args.slice(0, -1), file: join(root, file) }
}
