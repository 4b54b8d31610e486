import { execFileSync, execSync } from "node:child_process"
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/*
 * The scratch copy the walkthrough edits: the working tree's files (tracked and untracked,
 * .gitignore applied; on a fresh clone, the commit), in a git repository of its own whose one
 * commit is the tree before the recipe, so that `git status` there lists what the recipe changed.
 */

/** Generated files: not counted among the recipe's hand-written ones. */
export const isGenerated = (file) => file.startsWith("src/gen/") || file.startsWith("test/e2e/support/openapi/")

/**
 * node_modules as links into the repository's, but the workspace's own package
 * (onboarding-services-client → packages/client), which must be the copy's: the console's types
 * and the /rpc client come from its build.
 */
const linkModules = (repo, scratch) => {
  const modules = join(scratch, "node_modules")
  mkdirSync(modules)
  for (const name of readdirSync(join(repo, "node_modules"))) {
    if (name === ".vite" || name === ".cache") continue
    if (name.startsWith("@")) {
      mkdirSync(join(modules, name))
      for (const inner of readdirSync(join(repo, "node_modules", name))) linkOne(repo, scratch, `${name}/${inner}`)
    } else linkOne(repo, scratch, name)
  }
}

const linkOne = (repo, scratch, name) => {
  const source = join(repo, "node_modules", name)
  const target = join(scratch, "node_modules", name)
  symlinkSync(name === "onboarding-services-client" ? join(scratch, "packages", "client") : source, target)
}

export const makeScratch = (repo) => {
  const scratch = mkdtempSync(join(tmpdir(), "walkthrough-"))
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: repo })
    .toString()
    .split("\0")
    .filter((file) => file !== "" && existsSync(join(repo, file)) && !lstatSync(join(repo, file)).isDirectory())
  const list = join(scratch, ".files")
  writeFileSync(list, files.join("\0"))
  execSync(`tar -C '${repo}' --null -T '${list}' -cf - | tar -C '${scratch}' -xf -`, { shell: "/bin/bash" })
  rmSync(list)
  linkModules(repo, scratch)
  const git = (...args) => execFileSync("git", ["-c", "user.name=walkthrough", "-c", "user.email=walkthrough@localhost", ...args], { cwd: scratch })
  git("init", "-q")
  git("add", "-A")
  git("commit", "-q", "--no-verify", "-m", "before the recipe")
  return scratch
}

/** The files the recipe changed or added in the copy, relative to its root. */
export const changedFiles = (scratch) =>
  execFileSync("git", ["status", "--porcelain", "--untracked-files=all"], { cwd: scratch })
    .toString()
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => line.slice(3).replace(/^.* -> /, ""))
