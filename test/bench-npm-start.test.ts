import { describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { npmStartCommand } from "../bench/NpmStart.js"

const script = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { scripts: { start: string } }).scripts.start

/**
 * The benchmark measures the embedded default by `npm start`'s own command, read from package.json
 * (bench/NpmStart.ts): what it reads must be what the shell runs, variables and flags alike.
 */
describe("npm start's command, as the benchmark runs it", () => {
  it("has the variables and the flags the shell gives the process", () => {
    const command = npmStartCommand()
    // The script as npm runs it (sh -c), its file replaced by a program that prints what node was given.
    const shown = execFileSync("sh", ["-c", script.replace(/ \S+\.js$/, " -e 'console.log(JSON.stringify({ env: process.env, argv: process.execArgv }))'")], {
      encoding: "utf8",
      env: { PATH: process.env["PATH"] ?? "" }
    })
    const { argv, env } = JSON.parse(shown) as { env: Record<string, string>; argv: Array<string> }
    expect(Object.keys(command.env).length).toBeGreaterThan(0)
    for (const [name, value] of Object.entries(command.env)) expect(env[name], name).toBe(value)
    expect(argv.filter((arg) => arg !== "-e" && !arg.startsWith("console.log"))).toEqual(command.nodeArgs)
    expect(command.file.endsWith("dist/main/all.js")).toBe(true)
  })
})
