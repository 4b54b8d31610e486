#!/usr/bin/env node
// The walkthrough of docs/adding-a-field.md, performed: on a scratch copy of the tree, the page's
// edits and commands in its order, then the field checked in every style against the built
// all-in-one process (the page says what and why). Run by .ci/run; `node scripts/walkthrough.mjs`.
import { spawn } from "node:child_process"
import { readFileSync, rmSync } from "node:fs"
import * as net from "node:net"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { applyEdit, runCommand, statedCount, stepsOf } from "./walkthrough/recipe.mjs"
import { changedFiles, isGenerated, makeScratch } from "./walkthrough/scratch.mjs"

const repo = join(dirname(fileURLToPath(import.meta.url)), "..")
const recipe = "docs/adding-a-field.md"
const started = Date.now()
const seconds = () => `${Math.round((Date.now() - started) / 1000)} s`

/** A port below Linux's ephemeral range that nothing listens on (as test/e2e/support/Processes.ts). */
const freePort = async (taken) => {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_768)
    if (taken.has(port)) continue
    const free = await new Promise((resolve) => {
      const server = net.createServer().once("error", () => resolve(false))
      server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)))
    })
    if (free) return taken.add(port) && port
  }
}

/** `dist/main/all.js` of the copy, on an in-memory database, once its four ports listen. */
const startAllInOne = async (scratch) => {
  const taken = new Set()
  const ports = { org: await freePort(taken), profile: await freePort(taken), license: await freePort(taken), workflow: await freePort(taken) }
  const child = spawn(process.execPath, [join(scratch, "dist/main/all.js")], {
    cwd: scratch,
    env: {
      ...process.env,
      DATA_DIR: "memory://",
      ACCESS_LOG: "off",
      ORG_PORT: String(ports.org),
      PROFILE_PORT: String(ports.profile),
      LICENSE_PORT: String(ports.license),
      WORKFLOW_PORT: String(ports.workflow)
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  const exited = new Promise((resolve) => child.once("exit", resolve))
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the process did not listen in 120 s:\n${output}`)), 120_000)
    const read = (chunk) => {
      output += chunk
      if ((output.match(/listening on/g) ?? []).length >= 4) resolve(clearTimeout(timer))
    }
    child.stdout.on("data", read)
    child.stderr.on("data", read)
    void exited.then((code) => reject(new Error(`the process exited (${code}) before listening:\n${output}`)))
  })
  const urls = Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, `http://127.0.0.1:${port}`]))
  const stop = async () => {
    child.kill("SIGTERM")
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000)
    await exited
    clearTimeout(timer)
  }
  return { urls, stop }
}

/** The page's steps on the copy; answers the hand-written files its edits name. */
const performRecipe = (scratch, markdown) => {
  const named = new Set()
  for (const step of stepsOf(markdown)) {
    if (step.kind === "edit") {
      const file = applyEdit(scratch, step)
      console.log(`edited ${file}`)
      named.add(file)
    } else {
      for (const command of step.commands) {
        try {
          runCommand(scratch, command)
        } catch {
          throw new Error(`the recipe's command failed at this step: ${command}`)
        }
      }
    }
  }
  return named
}

/** The hand-written files changed are those the page names, as many as it says. */
const checkFiles = (scratch, markdown, named) => {
  const changed = changedFiles(scratch)
  const handWritten = changed.filter((file) => !isGenerated(file))
  console.log(`changed: ${handWritten.length} hand-written (${handWritten.join(", ")}), ${changed.length - handWritten.length} generated (${changed.filter(isGenerated).join(", ")})`)
  const unnamed = handWritten.filter((file) => !named.has(file))
  if (unnamed.length > 0) throw new Error(`the recipe changed hand-written files it does not name: ${unnamed.join(", ")}`)
  const unchanged = [...named].filter((file) => !handWritten.includes(file))
  if (unchanged.length > 0) throw new Error(`the recipe names files its steps left unchanged: ${unchanged.join(", ")}`)
  const stated = statedCount(markdown)
  if (stated !== handWritten.length) throw new Error(`${recipe} says ${stated} hand-written files; its steps changed ${handWritten.length}`)
}

const main = async () => {
  const scratch = makeScratch(repo)
  console.log(`scratch copy: ${scratch} (${seconds()})`)
  let server
  // Stopped from outside (Ctrl-C, CI's timeout): the process and the copy go too.
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.once(signal, () => {
      void (server?.stop() ?? Promise.resolve()).finally(() => {
        if (process.env["KEEP_SCRATCH"] !== "1") rmSync(scratch, { recursive: true, force: true })
        process.exit(130)
      })
    })
  }
  let failed = []
  try {
    const markdown = readFileSync(join(scratch, recipe), "utf8")
    const named = performRecipe(scratch, markdown)
    checkFiles(scratch, markdown, named)
    console.log(`recipe performed, files as it says (${seconds()}); starting the process`)
    server = await startAllInOne(scratch)
    const { runChecks } = await import("./walkthrough/checks.mjs")
    failed = await runChecks({ scratch, urls: server.urls })
  } catch (error) {
    failed = [error instanceof Error ? error.message : String(error)]
    console.error(`FAILED: ${failed[0]}`)
  } finally {
    await server?.stop()
    if (process.env["KEEP_SCRATCH"] === "1") console.log(`kept: ${scratch}`)
    else rmSync(scratch, { recursive: true, force: true })
  }
  if (failed.length > 0) {
    console.error(`\nthe walkthrough failed (${seconds()}), ${failed.length} check(s):`)
    for (const line of failed) console.error(`  - ${line.split("\n")[0]}`)
    process.exit(1)
  }
  console.log(`\nthe walkthrough passed (${seconds()})`)
}

await main()
