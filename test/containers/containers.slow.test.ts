import { randomUUID } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launchBrowser } from "../e2e/support/Browser.js"
import { examples, expectAnswered } from "../e2e/support/ReadmeExamples.js"
import type { Acknowledged } from "../support/Load.js"
import { auditWorkflows, orphanQuery } from "../support/WorkflowAudit.js"
import {
  buildImage,
  compose,
  docker,
  dockerAvailable,
  dockerOutcome,
  eventually,
  image,
  inspect,
  ready,
  renderCompose,
  restartCount,
  root
} from "./Docker.js"

/**
 * The image and compose.yaml as an operator runs them, tried for real: the Dockerfile built
 * unchanged, compose.yaml brought up (in the host's network, on the machine's PostgreSQL: see
 * compose.host-network.yaml), then the README's first calls, the console, a stop under load, a
 * killed process and the embedded image recreated on its volume. `npm run test:containers`.
 */

const available = await dockerAvailable()
const project = `onboarding-containers-${process.pid}`
const server = process.env["TEST_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres"
const database = `onboarding_containers_${process.pid}`
const databaseUrl = Object.assign(new URL(server), { pathname: `/${database}` }).toString()
const urls = { org: "http://127.0.0.1:29090", profile: "http://127.0.0.1:29091", license: "http://127.0.0.1:29092", workflow: "http://127.0.0.1:28081" }
const services = ["org", "profile", "license", "workflow"] as const
const container = (service: string) => `${project}_${service}_1`
const work = mkdtempSync(join(tmpdir(), "onboarding-containers-"))
const composeFile = join(work, "compose.json")

const onServer = async (sql: string) => {
  const db = new pg.Client({ connectionString: server })
  await db.connect()
  await db.query(sql).finally(() => db.end())
}

const orphans = async () => {
  const db = new pg.Client({ connectionString: databaseUrl })
  await db.connect()
  const { rows } = await db.query(orphanQuery).finally(() => db.end())
  return rows[0] as { orgs: number; profiles: number; licenses: number; runs: number }
}

const onboardOverRest = async (orgName: string): Promise<Acknowledged | undefined> => {
  const reply = await fetch(`${urls.workflow}/workflow/workflows/onboarding`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ org: { name: orgName }, profile: { fullName: "Stop Test" }, license: { start: "2025-01-01T00:00:00Z", end: "2026-01-01T00:00:00Z" } })
  }).catch(() => undefined)
  if (reply?.status !== 200) return undefined
  const made = await reply.json() as { workflowId: string; orgId: string; profileId: string; licenseId: string }
  return { kind: "workflow", id: made.workflowId, orgId: made.orgId, profileId: made.profileId, licenseId: made.licenseId, orgName }
}

describe.skipIf(!available)("the image and compose.yaml, in containers", () => {
  let browser: Browser | undefined
  beforeAll(async () => {
    await buildImage()
    await onServer(`create database ${database}`)
    await renderCompose(composeFile, { CONTAINERS_DATABASE_URL: databaseUrl })
    ;[browser] = await Promise.all([launchBrowser(), compose(project, composeFile, "up", "-d", "--no-build")])
    for (const service of services) {
      await eventually(`${service} healthy`, async () => (await inspect(container(service))).Health?.Status === "healthy")
    }
  }, 1_500_000)

  afterAll(async () => {
    await browser?.close()
    if (!available) return
    await compose(project, composeFile, "down", "-v").catch(() => undefined)
    await onServer(`drop database if exists ${database} with (force)`).catch(() => undefined)
    rmSync(work, { recursive: true, force: true })
  })

  it("the image holds no package the lock marks dev, and runs as a user other than root", async () => {
    const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as { packages: Record<string, { dev?: boolean }> }
    const dev = new Set(Object.entries(lock.packages).filter(([, entry]) => entry.dev === true).map(([path]) => path))
    const listing = `const fs = require("node:fs"); const found = [];
      const walk = (dir) => { for (const name of fs.readdirSync(dir)) {
        if (name.startsWith(".")) continue
        if (name.startsWith("@")) { for (const inner of fs.readdirSync(dir + "/" + name)) visit(dir + "/" + name + "/" + inner) } else visit(dir + "/" + name) } }
      const visit = (path) => { found.push(path); if (fs.existsSync(path + "/node_modules")) walk(path + "/node_modules") }
      walk("node_modules"); console.log(JSON.stringify({ uid: process.getuid(), found }))`
    const { found, uid } = JSON.parse(await docker("run", "--rm", "--network", "none", "--entrypoint", "node", image, "-e", listing)) as { uid: number; found: Array<string> }
    expect(found.length).toBeGreaterThan(50)
    expect(found.filter((path) => dev.has(path))).toEqual([])
    expect(found).toContain("node_modules/pg")
    expect(uid).not.toBe(0)
  })

  it("answers the README's first examples", async () => {
    for (const example of examples("first")) await expectAnswered(example, urls)
  }, 120_000)

  it("serves the console, which onboards and lists through the other containers", async () => {
    const page = await browser!.newPage()
    await page.goto("http://localhost:28081/")
    const org = `Container Corp ${randomUUID().slice(0, 8)}`
    await page.getByLabel("The org's display name").fill(org)
    await page.getByLabel("The person's full name").fill("Ada Container")
    await page.getByLabel("When the license starts").fill("2025-01-01T09:00")
    await page.getByLabel("When the license ends").fill("2026-01-01T09:00")
    await page.getByRole("button", { name: "Onboard" }).click()
    const shown = page.locator("#result dl dt:text-is('Organization') + dd a")
    await shown.waitFor({ timeout: 30_000 })
    expect((await shown.innerText()).trim()).toBe(org)
    // The list of organizations, read from the org container by the browser.
    await page.goto("http://localhost:28081/#/orgs")
    await expect.poll(() => page.locator("table.rows tbody").innerText(), { timeout: 30_000 }).toContain(org)
    await page.close()
  }, 120_000)

  it("`docker stop` of the workflow service under load loses no acknowledged write and leaves nothing partial", async () => {
    const before = await orphans()
    const acknowledged: Array<Acknowledged> = []
    const sent: Array<string> = []
    let stopped = false
    const client = async () => {
      // Until the stop, then a little after it (calls refused once the port is closed).
      for (let after = 0; !stopped || after < 20; after += stopped ? 1 : 0) {
        const name = `stop-${randomUUID()}`
        sent.push(name)
        const made = await onboardOverRest(name)
        if (made !== undefined) acknowledged.push(made)
        else await new Promise((resolve) => setTimeout(resolve, 20))
      }
    }
    const clients = Array.from({ length: 4 }, client)
    await eventually("some workflows acknowledged", async () => acknowledged.length >= 20)
    await docker("stop", "-t", "20", container("workflow"))
    stopped = true
    await Promise.all(clients)
    const state = await inspect(container("workflow"))
    expect({ status: state.Status, exitCode: state.ExitCode }).toEqual({ status: "exited", exitCode: 0 })
    const audit = await auditWorkflows(databaseUrl, acknowledged, sent)
    expect({ complete: audit.complete, duplicated: audit.duplicated }).toEqual({ complete: acknowledged.length, duplicated: 0 })
    // Nothing half-made: no org, profile or license more than before without its run record.
    const after = await orphans()
    expect({ orgs: after.orgs, profiles: after.profiles, licenses: after.licenses })
      .toEqual({ orgs: before.orgs, profiles: before.profiles, licenses: before.licenses })
    expect(after.runs - before.runs).toBeGreaterThanOrEqual(acknowledged.length)
    await docker("start", container("workflow"))
    await eventually("workflow ready again", () => ready(urls.workflow))
  }, 240_000)

  it("a process killed with SIGKILL from the host comes back ready by the restart policy", async () => {
    const restarts = await restartCount(container("org"))
    const { Pid } = await inspect(container("org"))
    process.kill(Pid, "SIGKILL")
    await eventually("org restarted", async () => (await restartCount(container("org"))) > restarts)
    await eventually("org ready", () => ready(urls.org))
    await expectAnswered(examples("first")[0]!, urls)
  }, 180_000)

  it("the embedded image recreated on its volume starts and keeps its data; a second one beside it is refused", async () => {
    const volume = `${project}-data`
    const ports = ["ORG_PORT=39090", "PROFILE_PORT=39091", "LICENSE_PORT=39092", "WORKFLOW_PORT=38081"]
    const embedded = (name: string, detached: boolean, extra: ReadonlyArray<string> = []) => [
      "run",
      ...(detached ? ["-d"] : []),
      "--name",
      name,
      // A host name of its own, as a container has outside the host's network: a recreated one's is new.
      "--hostname",
      name,
      "--network",
      "host",
      ...["HOST=127.0.0.1", ...ports, ...extra].flatMap((setting) => ["-e", setting]),
      "-v",
      `${volume}:/data`,
      image
    ]
    const first = `${project}-first`
    const beside = `${project}-beside`
    const recreated = `${project}-recreated`
    try {
      await docker(...embedded(first, true))
      await eventually("the embedded image ready", () => ready("http://127.0.0.1:38081"))
      const id = randomUUID()
      const created = await fetch("http://127.0.0.1:39090/org.v1beta1.OrgService/CreateOrg", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ id, name: "Kept" })
      })
      expect(created.status).toBe(200)

      // A second container on the same volume while the first lives: refused, naming the first.
      const refused = await dockerOutcome(...embedded(beside, false, ["ORG_PORT=39190", "PROFILE_PORT=39191", "LICENSE_PORT=39192", "WORKFLOW_PORT=38181"]))
      expect(refused.code).not.toBe(0)
      expect(refused.output).toContain(`in use by process 1 on host ${first}`)

      // Killed (its lock left behind), removed, and a new container (a new host name) on the volume.
      await docker("kill", first)
      await docker("rm", first)
      await docker(...embedded(recreated, true))
      await eventually("the recreated image ready", () => ready("http://127.0.0.1:38081"))
      const read = await fetch(`http://127.0.0.1:39090/orgs/${id}`)
      expect(await read.json()).toEqual({ org: { id, name: "Kept" } })
    } finally {
      await docker("rm", "-f", first, beside, recreated).catch(() => undefined)
      await docker("volume", "rm", "-f", volume).catch(() => undefined)
    }
  }, 240_000)
})
