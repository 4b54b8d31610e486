import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import * as net from "node:net"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { serverUrl } from "../support/TestDatabase.js"
import { entry, expectOneLine, runToEnd } from "./support/RunToEnd.js"
import { freePort, startAllInOne, stopProcess } from "./support/Processes.js"

const org = { DATABASE_URL: "postgres://app@127.0.0.1:1/onboarding" }
const memory = { DATA_DIR: "memory://" }
const whole = (name: string, value: string, max = 2_147_483_647, min = 1) =>
  `all: ${name}=${value} is not valid: must be a whole number from ${min} to ${max}`

/**
 * [process, environment, the one line it must print]: one case per kind of rule, in the real
 * processes (test/main/settings.test.ts holds every variable's rules, in-process).
 */
const badSettings: ReadonlyArray<readonly [string, Record<string, string>, string]> = [
  ["org", { ...org, PORT: "abc" }, "org: PORT=abc is not valid: must be a whole number from 1 to 65535"],
  ["org", { ...org, PORT: "99999" }, "org: PORT=99999 is not valid: must be a whole number from 1 to 65535"],
  // Before: reported only after the embedded database had started.
  ["all", { ...memory, ORG_PORT: "abc" }, "all: ORG_PORT=abc is not valid: must be a whole number from 1 to 65535"],
  ["all", { ...memory, DATABASE_POOL_SIZE: "-1" }, whole("DATABASE_POOL_SIZE", "-1", 1000)],
  ["all", { ...memory, SHUTDOWN_GRACE_MS: "0" }, whole("SHUTDOWN_GRACE_MS", "0")],
  // Past 2^31-1 ms a Node timer fires at once: the timeout would be no timeout at all.
  ["all", { ...memory, REQUEST_TIMEOUT_MS: "3000000000" }, whole("REQUEST_TIMEOUT_MS", "3000000000")],
  ["all", { DATABASE_URL: "not a url" }, `all: DATABASE_URL="not a url" is not valid: must be a postgres:// or postgresql:// URL`],
  [
    "workflow",
    { DATABASE_URL: "mysql://root:hunter2@db:3306/onboarding" },
    "workflow: DATABASE_URL=mysql://root:***@db:3306/onboarding is not valid: must be a postgres:// or postgresql:// URL"
  ],
  [
    "all",
    { ...memory, API_TOKEN: "two words" },
    "all: API_TOKEN (value not shown) is not valid: must be visible ASCII characters without spaces (unset it to turn authentication off)"
  ],
  ["all", { ...memory, HOST: "local host" }, `all: HOST="local host" is not valid: must be an IP address or a host name`],
  [
    "all",
    { ...memory, CORS_ORIGINS: "https://app.example.com/" },
    "all: CORS_ORIGINS=https://app.example.com/ is not valid: must be * or comma-separated origins such as " +
    "https://app.example.com (scheme, host and port only)"
  ],
  ["all", { ...memory, MIGRATE: "later" }, "all: MIGRATE=later is not valid: must be one of on, off"],
  ["all", { DATA_DIR: "file:///var/data" }, "all: DATA_DIR=file:///var/data is not valid: must be a directory path, or memory://"],
  [
    "all",
    { ...memory, ORG_SERVICE_URL: "orgs.example.com" },
    "all: ORG_SERVICE_URL=orgs.example.com is not valid: must be an origin such as http://orgs.example.com:9090 (scheme, host and port only)"
  ]
]

describe("a bad setting stops the process before anything starts, with one line on stderr", () => {
  it("names the variable, the value (secrets hidden) and the rule", async () => {
    // Five processes at a time, each given a minute: fifteen Node processes loading the whole
    // server at once beside the rest of the suite once took over 30 s on CI's two cores (killed,
    // no exit code), though each refuses its setting before anything starts.
    const ended: Array<Awaited<ReturnType<typeof runToEnd>>> = []
    for (let i = 0; i < badSettings.length; i += 5) {
      ended.push(...await Promise.all(badSettings.slice(i, i + 5).map(([name, env]) => runToEnd(name, env))))
    }
    badSettings.forEach(([, env, line], i) => {
      expectOneLine(ended[i]!, line)
      expect(ended[i]!.stderr).not.toContain("hunter2")
      if (env["API_TOKEN"] !== undefined) expect(ended[i]!.stderr).not.toContain(env["API_TOKEN"])
    })
  }, 240_000)
})

/**
 * Free ports for the all-in-one process: every port is bound before the database opens, so a
 * start on the default ports would fail on them whenever another suite's process holds one.
 */
const allPorts = async () => {
  const [org, profile, license, workflow] = await Promise.all([freePort(), freePort(), freePort(), freePort()])
  return { ORG_PORT: String(org), PROFILE_PORT: String(profile), LICENSE_PORT: String(license), WORKFLOW_PORT: String(workflow) }
}

describe.concurrent("a failed start says which service, what failed and the variable to look at", () => {
  it("the embedded database's directory cannot be created: a path below a regular file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "onboarding-startup-"))
    try {
      await writeFile(join(dir, "file"), "")
      const dataDir = join(dir, "file", "data")
      expectOneLine(
        await runToEnd("all", { DATA_DIR: dataDir, ...(await allPorts()) }),
        `all: cannot create and write DATA_DIR=${dataDir}: a part of the path is a file, not a directory ` +
          `(set DATA_DIR to a directory this process may create and write)`
      )
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  // Node's own recursive mkdir spun there at full CPU, deaf to SIGTERM, until killed.
  it.skipIf(process.platform !== "linux")("a directory the kernel will not create (/proc/x) fails at once", async () => {
    expectOneLine(
      await runToEnd("all", { DATA_DIR: "/proc/onboarding-data", ...(await allPorts()) }, 90),
      "all: cannot create and write DATA_DIR=/proc/onboarding-data: it cannot be created there " +
        "(set DATA_DIR to a directory this process may create and write)"
    )
  })

  it("PostgreSQL refuses connections (nothing listens on the port)", async () => {
    const closed = await freePort()
    expectOneLine(
      await runToEnd("workflow", { DATABASE_URL: `postgres://postgres:s3cret@127.0.0.1:${closed}/onboarding`, PORT: String(await freePort()) }),
      `workflow: cannot reach PostgreSQL at postgres://postgres:***@127.0.0.1:${closed}/onboarding: ` +
        `connection refused (check DATABASE_URL)`
    )
  })

  it.skipIf(serverUrl === undefined)("PostgreSQL has no such database, or no such role", async () => {
    const missing = new URL(serverUrl!)
    missing.pathname = "/onboarding_no_such_database"
    const stranger = new URL(serverUrl!)
    stranger.username = "onboarding_no_such_role"
    const [database, role] = await Promise.all([
      runToEnd("org", { DATABASE_URL: missing.toString(), PORT: String(await freePort()) }),
      runToEnd("org", { DATABASE_URL: stranger.toString(), PORT: String(await freePort()) })
    ])
    expectOneLine(database, /^org: PostgreSQL at .* refused the connection: database "onboarding_no_such_database" does not exist \(check DATABASE_URL\)\n$/)
    expectOneLine(role, /^org: PostgreSQL at .* refused the connection: .*"onboarding_no_such_role".* \(check DATABASE_URL\)\n$/)
  })

  it("a port is already in use: one line before the database opens, no other port listening", async () => {
    const taken = net.createServer()
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve))
    const port = (taken.address() as net.AddressInfo).port
    // A new data directory on disk: had the database been opened first, it would now hold one.
    const dataDir = join(await mkdtemp(join(tmpdir(), "onboarding-port-taken-")), "data")
    try {
      const [profile, license, workflow] = await Promise.all([freePort(), freePort(), freePort()])
      const ended = await runToEnd("all", {
        DATA_DIR: dataDir,
        ORG_PORT: String(port),
        PROFILE_PORT: String(profile),
        LICENSE_PORT: String(license),
        WORKFLOW_PORT: String(workflow)
      })
      expectOneLine(ended, `all: cannot listen on 127.0.0.1:${port} for the org service: address already in use (set ORG_PORT)`)
      expect({ dataDirCreated: existsSync(dataDir) }).toEqual({ dataDirCreated: false })
      const twice = await runToEnd("all", { ...memory, ORG_PORT: String(profile), PROFILE_PORT: String(profile) })
      expectOneLine(twice, `all: cannot listen on 127.0.0.1:${profile} for the profile service: address already in use (set PROFILE_PORT)`)
      if (serverUrl !== undefined) {
        expectOneLine(
          await runToEnd("org", { DATABASE_URL: serverUrl, PORT: String(port) }),
          `org: cannot listen on 127.0.0.1:${port}: address already in use (set PORT or ORG_PORT)`
        )
      }
    } finally {
      taken.close()
      await rm(dirname(dataDir), { recursive: true, force: true })
    }
  })
})

describe("PORT in the all-in-one process", () => {
  it("is not read, and said so in a warning rather than ignored in silence", async () => {
    const started = await startAllInOne({ PORT: "8123", ACCESS_LOG: "off" })
    try {
      expect(started.running.output()).toContain(
        "all: PORT=8123 is ignored: this process serves 4 ports, each on its own variable (ORG_PORT, PROFILE_PORT, LICENSE_PORT, WORKFLOW_PORT)"
      )
      expect(started.ports).not.toContain(8123)
    } finally {
      await stopProcess(started.running)
    }
  })
})

describe("--help", () => {
  /** Every variable named in the files that read the environment (a new one must be documented). */
  const variablesRead = () => {
    const sources = ["Settings.ts", "DatabaseSettings.ts", "ServicePorts.ts", "Logging.ts", "OtlpSettings.ts", "OpenTelemetry.ts"].map((file) =>
      readFileSync(fileURLToPath(new URL(`../../src/main/${file}`, import.meta.url)), "utf8")
    )
    const names = sources.flatMap((text) => [...text.matchAll(/"([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|PORT|HOST)"/g)].map((m) => m[1]!))
    return [...new Set(names)]
  }

  it("lists every variable the processes read", async () => {
    const help = (name: string) =>
      new Promise<string>((resolve, reject) =>
        execFile(process.execPath, [entry(name), "--help"], (error, stdout) => (error ? reject(error) : resolve(stdout)))
      )
    const [all, org] = await Promise.all([help("all"), help("org")])
    const read = variablesRead()
    expect(read.length).toBeGreaterThan(15)
    for (const variable of read.filter((name) => name !== "PORT")) expect(all).toContain(variable)
    // The console's settings only where the console is served (the next test).
    for (const variable of read.filter((name) => !/^(ORG|PROFILE|LICENSE|WORKFLOW)_PORT$|^DATA_DIR$|_SERVICE_URL$/.test(name))) {
      expect(org).toContain(variable)
    }
  })

  it("names each process's own REST paths, and the console's settings only where the console is served", async () => {
    const help = (name: string) =>
      new Promise<string>((resolve, reject) =>
        execFile(process.execPath, [entry(name), "--help"], (error, stdout) => (error ? reject(error) : resolve(stdout)))
      )
    const own = { org: "/orgs/{id}", profile: "/profiles/{id}", license: "/licenses/{id}", workflow: "/workflow/workflows/onboarding" }
    const texts = Object.fromEntries(await Promise.all(["all", ...Object.keys(own)].map(async (name) => [name, await help(name)] as const)))
    for (const [name, path] of Object.entries(own)) {
      expect([name, texts[name]!.includes(path)]).toEqual([name, true])
      for (const [other, otherPath] of Object.entries(own)) {
        if (other !== name) expect([name, other, texts[name]!.includes(otherPath)]).toEqual([name, other, false])
      }
      expect([name, texts[name]!.includes("ORG_SERVICE_URL")]).toEqual([name, name === "workflow"])
      expect(texts["all"]).toContain(path)
    }
    expect(texts["all"]).toContain("ORG_SERVICE_URL")
  })

  it("lists every style a port serves", async () => {
    const help = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, [entry("org"), "--help"], (error, stdout) => (error ? reject(error) : resolve(stdout)))
    )
    for (const style of ["Connect (JSON and binary)", "gRPC and gRPC-Web", "reflection", "REST", "/openapi.json", "GraphQL", "/graphql", "@effect/rpc", "/rpc", "/healthz", "/readyz", "grpc.health.v1.Health"]) {
      expect(help).toContain(style)
    }
  })
})
