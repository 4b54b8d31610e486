import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../../../", import.meta.url))

/**
 * What `npm start` runs, read from package.json so that a measurement of the embedded default
 * carries its Node flags too: the script is `exec node <flags> <file>`.
 */
export const npmStartCommand = () => {
  const script = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: { start: string } }).scripts.start
  const args = script.replace(/^exec node /, "").split(" ")
  const file = args.at(-1)
  if (file === undefined || !file.endsWith(".js")) throw new Error(`npm start's script is not \`exec node [flags] <file>.js\`: ${script}`)
  return { script, nodeArgs: args.slice(0, -1), file: join(root, file) }
}
