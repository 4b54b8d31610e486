import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { freshServerDatabase, serverUrl } from "../support/TestDatabase.js"
import { chromiumPath, launchBrowser } from "./support/Browser.js"
import { freePort } from "./support/Processes.js"
import { cleanEnvironment } from "./support/RunToEnd.js"

/**
 * The README's one-process-per-service block, run as written, with only its database URL and its
 * ports replaced by the test's own: four processes on one fresh PostgreSQL database, and the
 * console, at the workflow's port in Chromium, lists an org, a profile and a license made on
 * their own ports. Without `CORS_ORIGINS` on any of the three, or a `*_SERVICE_URL` on the
 * workflow's, the browser cannot reach that service from the console's page: its list shows why.
 */

const root = fileURLToPath(new URL("../../", import.meta.url))
const readme = readFileSync(`${root}README.md`, "utf8")
const block = /```sh\n([\s\S]*?)```/.exec(readme.split("## One process per service")[1]!)![1]!

/** The block's commands, a line each (continuations joined), comments left out. */
const commandsOf = (text: string) =>
  text.replace(/\\\n\s*/g, " ").split("\n").filter((line) => line.trim() !== "" && !line.startsWith("#"))

/** The README's default ports, in order: org, profile, license, workflow. */
const readmePorts = ["9090", "9091", "9092", "8081"] as const

/** The block with the test's database URL and ports: nothing else changes. */
const onTestSettings = (text: string, databaseUrl: string, ports: ReadonlyArray<number>) =>
  text
    .replace(/DATABASE_URL=\S+/g, `DATABASE_URL=${databaseUrl}`)
    .replace(/\b(9090|9091|9092|8081)\b/g, (port) => String(ports[readmePorts.indexOf(port as (typeof readmePorts)[number])]))

/** The machine's environment without any setting the block could have left out and a process would read. */
const environment = Object.fromEntries(
  Object.entries(cleanEnvironment).filter(([name]) => !/_SERVICE_URL$|^ALLOWED_HOSTS$|^SCHEMA_ACCESS$/.test(name))
)

/** One of the block's commands, after its `export`s, by bash in the repository, until it says it listens. */
const started = (script: string) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<{ readonly child: ChildProcess; readonly exited: Promise<unknown> }>((resolve, reject) => {
        // Its own process group: bash and the node it runs are stopped together.
        const child = spawn("bash", ["-c", script], { cwd: root, env: environment, detached: true, stdio: ["ignore", "pipe", "pipe"] })
        let output = ""
        const exited = new Promise((done) => child.once("exit", done))
        const timer = setTimeout(() => reject(new Error(`did not start in time: ${script}\n${output}`)), 180_000)
        const onOutput = (chunk: Buffer) => {
          output += chunk.toString()
          if (output.includes("listening on")) {
            clearTimeout(timer)
            resolve({ child, exited })
          }
        }
        child.stdout.on("data", onOutput)
        child.stderr.on("data", onOutput)
        void exited.then((code) => reject(new Error(`exited with ${code} before listening: ${script}\n${output}`)))
      })
    ),
    ({ child, exited }) =>
      Effect.promise(async () => {
        process.kill(-child.pid!, "SIGTERM")
        const timer = setTimeout(() => process.kill(-child.pid!, "SIGKILL"), 20_000)
        await exited
        clearTimeout(timer)
      })
  )

if (serverUrl === undefined) console.warn("TEST_DATABASE_URL is not set: the README's per-service block needs PostgreSQL, its test is skipped")

describe("README: one process per service", () => {
  it("is the build, exports, and one command a service", () => {
    const commands = commandsOf(block)
    expect(commands[0]).toBe("npm ci && npm run build")
    expect(commands.filter((line) => /node dist\/main\/(org|profile|license|workflow)\.js/.test(line))).toHaveLength(4)
    expect(commands.slice(1).every((line) => line.startsWith("export ") || line.includes("node dist/main/"))).toBe(true)
  })

  it.live.skipIf(chromiumPath === undefined || serverUrl === undefined)(
    "run as written (the test's database and ports), the console lists an org, a profile and a license in Chromium",
    () =>
      Effect.gen(function*() {
        const { url } = yield* freshServerDatabase(serverUrl!)
        const ports = yield* Effect.promise(() => Promise.all(readmePorts.map(freePort)))
        // The build is this checkout's (the e2e suites run on dist/); the rest as written.
        const [, ...commands] = commandsOf(onTestSettings(block, url, ports))
        const exports = commands.filter((line) => line.startsWith("export "))
        yield* Effect.all(
          commands.filter((line) => !line.startsWith("export ")).map((command) => started([...exports, command].join("\n"))),
          { concurrency: "unbounded" }
        )
        const [org, profile, license, workflow] = ports.map((port) => `http://127.0.0.1:${port}`) as [string, string, string, string]
        // An org on the org's port, a person in it on the profile's, a license of theirs on the license's.
        const suffix = randomUUID().slice(0, 8)
        const made = { orgId: randomUUID(), profileId: randomUUID(), orgName: `Per Service ${suffix}`, fullName: `Ada ${suffix}` }
        for (
          const [url, body] of [
            [`${org}/orgs/${made.orgId}`, { name: made.orgName }],
            [`${profile}/profiles/${made.profileId}`, { fullName: made.fullName, orgId: made.orgId }],
            [`${license}/licenses/${randomUUID()}`, { userId: made.profileId, start: "2026-01-01T00:00:00Z", end: "2027-01-01T00:00:00Z" }]
          ] as const
        ) {
          const created = yield* Effect.promise(() =>
            fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
          )
          expect({ url, status: created.status }).toEqual({ url, status: 200 })
        }
        const browser = yield* Effect.acquireRelease(Effect.promise(() => launchBrowser()), (browser) => Effect.promise(() => browser.close()))
        const page = yield* Effect.promise(() => browser.newPage())
        // Each list reads its own service, and names what the others hold: the org's name beside
        // the person, the person's beside the license.
        for (const [section, shown] of [["orgs", [made.orgName]], ["profiles", [made.fullName, made.orgName]], ["licenses", [made.fullName]]] as const) {
          yield* Effect.promise(async () => {
            await page.goto(`${workflow}/#/${section}`)
            // What the console shows: the row, or the alert naming the setting it could not reach a service by.
            for (const text of shown) await expect.poll(() => page.locator("main").innerText(), { timeout: 20_000 }).toContain(text)
            expect(await page.locator("table.rows tbody tr").allInnerTexts()).toEqual([expect.stringContaining(shown[0])])
          })
        }
      }).pipe(Effect.scoped),
    300_000
  )
})
