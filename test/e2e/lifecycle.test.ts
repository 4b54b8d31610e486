import { createClient } from "@connectrpc/connect"
import { createConnectTransport } from "@connectrpc/connect-node"
import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { WorkflowService } from "../../src/gen/workflow/v1beta1/workflow_pb.js"
import { freePort, startAllInOne, startProcess, stopProcess } from "./support/Processes.js"

const run = promisify(execFile)
const entry = (name: string) => fileURLToPath(new URL(`../../dist/main/${name}.js`, import.meta.url))

const workflowRequest = (i: number) => ({
  license: {
    start: { seconds: 1_700_136_000n, nanos: 0 },
    end: { seconds: 1_731_758_400n, nanos: 0 }
  },
  org: { name: `Org ${i}` },
  profile: { fullName: `Person ${i}` }
})

// Each test starts its own process on its own ports: they run at once, so one's start overlaps
// another's waits.
describe.concurrent("process lifecycle", () => {
  it("SIGTERM lets in-flight requests finish, then the process exits 0", async () => {
    const { running, workflow } = await startAllInOne()
    const client = createClient(
      WorkflowService,
      createConnectTransport({ baseUrl: workflow, httpVersion: "2" })
    )
    await client.createOnboardingWorkflow(workflowRequest(0)) // the HTTP/2 session is open
    const inFlight = Array.from({ length: 40 }, (_, i) => client.createOnboardingWorkflow(workflowRequest(i + 1)))
    await new Promise((resolve) => setTimeout(resolve, 20))
    const exitCode = stopProcess(running)
    const answers = await Promise.allSettled(inFlight)
    expect(answers.filter((a) => a.status === "rejected")).toEqual([])
    expect(await exitCode).toBe(0)
    expect(running.output()).toMatch(/workflow service stopped/)
  }, 60_000)

  it("with SHUTDOWN_DRAIN_MS, SIGTERM first makes /readyz 503 while calls still succeed, then the ports close", async ({ expect }) => {
    const { org, running, workflow } = await startAllInOne({ SHUTDOWN_DRAIN_MS: "1500" })
    const client = createClient(
      WorkflowService,
      createConnectTransport({ baseUrl: workflow, httpVersion: "1.1" })
    )
    expect((await fetch(`${org}/readyz`)).status).toBe(200)
    const signalled = Date.now()
    const exitCode = stopProcess(running)
    // Every port says not ready at once (one drain for the process), and still serves.
    await expect.poll(async () => (await fetch(`${org}/readyz`)).status, { timeout: 1_500, interval: 50 }).toBe(503)
    const ready = await Promise.all([org, workflow].map(async (url) => (await fetch(`${url}/readyz`)).status))
    expect(ready).toEqual([503, 503])
    expect((await client.createOnboardingWorkflow(workflowRequest(1))).workflowId).toMatch(/^[0-9a-f-]{36}$/)
    expect(await exitCode).toBe(0)
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(1_500)
    expect(running.output()).toMatch(/draining: not ready for 1500 ms/)
  }, 60_000)

  it("logs one JSON object per line when stdout is not a terminal, and never the token", async ({ expect }) => {
    const token = "s3cret-Token-that-must-not-leak"
    const [org, profile, license, workflow] = await Promise.all([freePort(), freePort(), freePort(), freePort()])
    const running = await startProcess("all", {
      DATA_DIR: "memory://",
      API_TOKEN: token,
      ORG_PORT: String(org),
      PROFILE_PORT: String(profile),
      LICENSE_PORT: String(license),
      WORKFLOW_PORT: String(workflow)
    }, 4)
    const refused = await fetch(`http://127.0.0.1:${org}/orgs/${crypto.randomUUID()}`)
    const served = await fetch(`http://127.0.0.1:${org}/orgs/${crypto.randomUUID()}`, {
      headers: { authorization: `Bearer ${token}` }
    })
    expect([refused.status, served.status]).toEqual([401, 404])
    // The database's pool and the workflow's outcomes are on /metrics too.
    const onboarded = createClient(
      WorkflowService,
      createConnectTransport({
        baseUrl: `http://127.0.0.1:${workflow}`,
        httpVersion: "1.1",
        interceptors: [(next) => (request) => {
          request.header.set("authorization", `Bearer ${token}`)
          return next(request)
        }]
      })
    )
    await onboarded.createOnboardingWorkflow(workflowRequest(1))
    const scrape = async () =>
      (await fetch(`http://127.0.0.1:${org}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text()
    // The pool is sampled every second: its gauges are there once the first sample is.
    await expect.poll(scrape, { timeout: 30_000, interval: 100 }).toMatch(/^onboarding_db_pool_waiting \d+$/m)
    const metrics = await scrape()
    expect(metrics).toMatch(/^onboarding_db_pool_connections\{state="idle"\} \d+$/m)
    expect(metrics).toMatch(/^onboarding_db_pool_connections\{state="in_use"\} \d+$/m)
    expect(metrics).toMatch(/^onboarding_db_pool_waiting \d+$/m)
    expect(metrics).toMatch(/^onboarding_workflows_total\{outcome="created"\} 1$/m)
    expect(await stopProcess(running)).toBe(0)
    const lines = running.output().split("\n").filter((line) => line !== "")
    expect(lines.length).toBeGreaterThan(5) // start-up, one line per port, shutdown
    for (const line of lines) {
      expect(JSON.parse(line)).toMatchObject({
        time: expect.any(String),
        level: expect.stringMatching(/^(debug|info|warning|error)$/),
        message: expect.any(String),
        service: "all"
      })
    }
    expect(running.output()).not.toContain(token)
  }, 60_000)

  for (const service of ["org", "profile", "license", "workflow"]) {
    it(`the ${service} process refuses to start without DATABASE_URL, saying why`, async () => {
      const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(await freePort()) }
      delete env["DATABASE_URL"]
      const failure = await run(process.execPath, [entry(service)], { env }).then(
        () => undefined,
        (error: { code: number; stdout: string; stderr: string }) => error
      )
      expect(failure?.code).toBe(1)
      expect(`${failure?.stdout}${failure?.stderr}`).toContain("DATABASE_URL is required")
    })
  }

  it("--help describes the configuration", async () => {
    const { stdout } = await run(process.execPath, [entry("all"), "--help"])
    expect(stdout).toContain("Usage: node dist/main/all.js")
    expect(stdout).toContain("DATABASE_URL")
    expect(stdout).toContain("ORG_PORT")
  })
})
