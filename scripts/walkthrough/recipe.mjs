import { execSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"

/*
 * docs/adding-a-field.md read as the steps it gives: its code blocks, in order. A block whose
 * first line has `edit` is an edit of the file `file=` names; a `sh run` block is commands. The
 * page's grammar is written on the page itself.
 */

/** The page's blocks: `{ kind: "edit", file, mode, anchor, messages, text }` or `{ kind: "run", commands }`. */
export const stepsOf = (markdown) => {
  const steps = []
  for (const [, info, body] of markdown.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)) {
    const words = info.trim().split(/\s+/)
    const text = body.replace(/\n$/, "")
    if (words[0] === "sh" && words.includes("run")) {
      steps.push({ kind: "run", commands: text.split("\n").filter((line) => line.trim() !== "" && !line.startsWith("#")) })
    } else if (words.includes("edit")) {
      const attribute = (name) => words.find((word) => word.startsWith(`${name}=`))?.slice(name.length + 1)
      const mode = ["imports", "after-imports", "new"].find((flag) => words.includes(flag)) ?? (attribute("after") ? "after" : undefined)
      if (attribute("file") === undefined || mode === undefined) throw new Error(`an edit block says neither its file nor how to edit it: \`\`\`${info}`)
      steps.push({ kind: "edit", file: attribute("file"), mode, anchor: attribute("after"), messages: attribute("in")?.split(","), text })
    }
  }
  return steps
}

/** The page's own count: "**N hand-written files**". */
export const statedCount = (markdown) => {
  const found = /\*\*(\d+) hand-written files?\*\*/.exec(markdown)
  if (found === null) throw new Error('the recipe states no count ("**N hand-written files**")')
  return Number(found[1])
}

/** `NNNN` in a migration's name: the number after the last one in migrations/. */
const numbered = (root, file) => {
  if (!file.includes("NNNN")) return file
  const last = Math.max(0, ...readdirSync(join(root, "migrations")).map((name) => Number(/^(\d+)_/.exec(name)?.[1] ?? 0)))
  return file.replace("NNNN", String(last + 1).padStart(4, "0"))
}

const fail = (step, why) => {
  throw new Error(`${step.file} (${step.mode}${step.anchor ? `=${step.anchor}` : ""}): ${why}`)
}

/** Line indexes of the lines declaring `field` (TypeScript `field:`, proto `type field = n;`), inside `messages` for a .proto. */
const declarations = (lines, step) => {
  const declares = step.file.endsWith(".proto")
    ? new RegExp(`^\\s*(optional |repeated )?[\\w.]+ ${step.anchor} = \\d+;`)
    : new RegExp(`^\\s*${step.anchor}\\??:`)
  const found = []
  let message
  lines.forEach((line, index) => {
    const opened = /^\s*message (\w+) \{/.exec(line)
    if (opened) message = opened[1]
    else if (/^\}/.test(line)) message = undefined
    if (declares.test(line) && (step.messages === undefined || step.messages.includes(message))) found.push({ index, message })
  })
  return found
}

const insertAfter = (lines, step) => {
  const found = declarations(lines, step)
  const expected = step.messages?.length ?? 1
  if (found.length !== expected) {
    fail(step, `expected ${expected} declaration(s) of ${step.anchor}${step.messages ? ` in ${step.messages.join(", ")}` : ""}, found ${found.length}`)
  }
  for (const { index } of found.reverse()) {
    if (!/[,;]\s*$/.test(lines[index])) fail(step, `the declaration of ${step.anchor} does not end on its line ("${lines[index].trim()}")`)
    lines.splice(index + 1, 0, ...step.text.split("\n"))
  }
  return lines
}

const importLine = /^import (?:type )?\{([^}]*)\} from (["'][^"']+["'])/

/** The block's `import { a } from "m"` merged into the file's import from "m", or added after the imports. */
const mergeImport = (lines, step) => {
  const [, names, module] = importLine.exec(step.text) ?? fail(step, `the block is not one import: ${step.text}`)
  const wanted = names.split(",").map((name) => name.trim()).filter(Boolean)
  const index = lines.findIndex((line) => importLine.exec(line)?.[2] === module)
  if (index === -1) return afterImports(lines, step, false)
  const have = importLine.exec(lines[index])[1].split(",").map((name) => name.trim()).filter(Boolean)
  const all = [...have, ...wanted.filter((name) => !have.includes(name))].sort((a, b) => a.localeCompare(b))
  lines[index] = lines[index].replace(/\{[^}]*\}/, `{ ${all.join(", ")} }`)
  return lines
}

const afterImports = (lines, step, blankLine = true) => {
  let last = -1
  lines.forEach((line, index) => {
    if (/^import\b/.test(line) || /^\} from ["']/.test(line)) last = index
  })
  if (last === -1) fail(step, "the file has no imports to insert after")
  lines.splice(last + 1, 0, ...(blankLine ? ["", ...step.text.split("\n")] : step.text.split("\n")))
  return lines
}

/** Applies one edit in `root`; answers the file it changed (relative to `root`). */
export const applyEdit = (root, step) => {
  const file = numbered(root, step.file)
  const path = join(root, file)
  if (step.mode === "new") {
    if (existsSync(path)) fail(step, "the file to write exists already")
    writeFileSync(path, `${step.text}\n`)
    return file
  }
  if (!existsSync(path)) fail(step, "no such file")
  const lines = readFileSync(path, "utf8").split("\n")
  const edited = step.mode === "after" ? insertAfter(lines, step) : step.mode === "imports" ? mergeImport(lines, step) : afterImports(lines, step)
  writeFileSync(path, edited.join("\n"))
  return file
}

/** Runs one command line of a `sh run` block at `root`, its output shown. */
export const runCommand = (root, command) => {
  console.log(`$ ${command}`)
  execSync(command, { cwd: root, stdio: "inherit", shell: "/bin/bash", env: process.env })
}
