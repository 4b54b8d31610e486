import { describe, expect, it } from "@effect/vitest"
import { type ChildProcess, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { systemTool } from "../support/SystemTools.js"
import { freePort, startProcess, stopProcess } from "./support/Processes.js"

const prometheus = systemTool("prometheus")

/** The dashboard queries docs/observability.md gives, each after its `#` comment line. */
const documentedQueries = (): Record<string, string> => {
  const text = readFileSync(new URL("../../docs/observability.md", import.meta.url), "utf8")
  const block = /```promql\n([\s\S]*?)```/.exec(text)![1]!
  const queries: Record<string, string> = {}
  let name = ""
  for (const line of block.split("\n")) {
    if (line.startsWith("#")) name = line.slice(1).trim()
    else if (line.trim() !== "") queries[name] = `${queries[name] ?? ""} ${line.trim()}`.trim()
  }
  return queries
}

/** One instant query through Prometheus's HTTP API: the value of each series, by its `style` and `code`. */
const query = async (base: string, promql: string): Promise<Record<string, number>> => {
  const reply = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(promql)}`)
  const body = await reply.json() as { data?: { result?: Array<{ metric: Record<string, string>; value: [number, string] }> } }
  return Object.fromEntries((body.data?.result ?? []).map((series) => [
    `${series.metric["style"]} ${series.metric["code"]}`,
    Number(series.value[1])
  ]))
}

describe.skipIf(prometheus === undefined)("metrics read back through a real Prometheus", () => {
  it("Prometheus scrapes /metrics with the bearer token and counts the calls of several styles", async () => {
    const token = "prometheus-scrape-token"
    const [org, profile, license, workflow, web] = await Promise.all(Array.from({ length: 5 }, freePort))
    const running = await startProcess("all", {
      DATA_DIR: "memory://",
      API_TOKEN: token,
      ACCESS_LOG: "off",
      ORG_PORT: String(org),
      PROFILE_PORT: String(profile),
      LICENSE_PORT: String(license),
      WORKFLOW_PORT: String(workflow)
    }, 4)
    const directory = mkdtempSync(join(tmpdir(), "prometheus-"))
    let server: ChildProcess | undefined
    try {
      writeFileSync(
        join(directory, "prometheus.yml"),
        [
          "global:",
          "  scrape_interval: 1s",
          "scrape_configs:",
          "  - job_name: onboarding",
          "    scrape_interval: 1s",
          "    authorization:",
          `      credentials: ${token}`,
          "    static_configs:",
          `      - targets: ["127.0.0.1:${org}"]`,
          ""
        ].join("\n")
      )
      server = spawn(prometheus!, [
        `--config.file=${join(directory, "prometheus.yml")}`,
        `--storage.tsdb.path=${join(directory, "data")}`,
        `--web.listen-address=127.0.0.1:${web}`
      ], { stdio: "ignore" })
      const base = `http://127.0.0.1:${web}`
      const auth = { authorization: `Bearer ${token}` }
      const json = { ...auth, "content-type": "application/json" }
      const ids = [randomUUID(), randomUUID(), randomUUID()]
      for (const id of ids) {
        await fetch(`http://127.0.0.1:${org}/orgs/${id}`, { method: "POST", headers: json, body: JSON.stringify({ name: "Acme" }) })
      }
      for (const id of ids.slice(0, 2)) {
        await fetch(`http://127.0.0.1:${org}/org.v1beta1.OrgService/GetOrg`, { method: "POST", headers: json, body: JSON.stringify({ id }) })
      }
      await fetch(`http://127.0.0.1:${org}/graphql`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ query: `{ org(id: "${randomUUID()}") { org { id } } }` })
      })
      await fetch(`http://127.0.0.1:${org}/orgs/${randomUUID()}`) // no token: refused

      const wanted = { "rest ok": 3, "connect ok": 2, "graphql not_found": 1, "rest unauthenticated": 1 }
      let seen: Record<string, number> = {}
      for (let attempt = 0; attempt < 60; attempt++) {
        seen = await query(base, `sum by (style, code) (onboarding_calls_total{service="org.v1beta1.OrgService"})`).catch(() => ({}))
        if (Object.entries(wanted).every(([key, count]) => seen[key] === count)) break
        await new Promise((resolve) => setTimeout(resolve, 500))
      }
      expect(seen).toMatchObject(wanted)
      const up = await query(base, `up{job="onboarding"}`)
      expect(Object.values(up)).toEqual([1])
      // The p99 of every call so far, from the histogram's buckets (a dashboard would take a rate).
      const p99 = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(
        `histogram_quantile(0.99, sum by (le) (onboarding_call_duration_seconds_bucket{service="org.v1beta1.OrgService"}))`
      )}`).then((reply) => reply.json()) as { data: { result: Array<{ value: [number, string] }> } }
      const seconds = Number(p99.data.result[0]?.value[1])
      expect(seconds).toBeGreaterThan(0)
      // Not a speed: histogram_quantile stays within the finite buckets, whose largest is 10 s (CallTelemetry.ts).
      expect(seconds).toBeLessThanOrEqual(10)

      // The documented dashboard queries, as written, on an operation these calls made: the share
      // of failures is 0 while none failed ("no data" would leave a dashboard panel blank).
      const queries = Object.entries(documentedQueries())
      expect(queries.map(([name]) => name)).toEqual([
        "calls per second, by style",
        "share of calls that failed on the server's side (0, not \"no data\", while none failed)",
        "p99 latency"
      ])
      const onCreateOrg = (promql: string) => promql.replaceAll(`operation="CreateOnboardingWorkflow"`, `operation="CreateOrg"`)
      // A rate needs the counter to grow between two scrapes: more creates, now that Prometheus has
      // scraped the first ones.
      for (const id of [randomUUID(), randomUUID(), randomUUID()]) {
        await fetch(`http://127.0.0.1:${org}/orgs/${id}`, { method: "POST", headers: json, body: JSON.stringify({ name: "Acme" }) })
      }
      let [calls, failures, latency]: Array<Array<number>> = []
      for (let attempt = 0; attempt < 40; attempt++) {
        ;[calls, failures, latency] = await Promise.all(
          queries.map(([, promql]) => query(base, onCreateOrg(promql)).then(Object.values, () => []))
        )
        if ((calls![0] ?? 0) > 0 && failures!.length > 0 && Number.isFinite(latency![0])) break
        await new Promise((resolve) => setTimeout(resolve, 500))
      }
      expect(calls!.length).toBe(1) // one style (REST) created orgs
      expect(calls![0]).toBeGreaterThan(0)
      expect(failures).toEqual([0])
      expect(latency![0]).toBeGreaterThan(0)
    } finally {
      server?.kill("SIGTERM")
      await stopProcess(running)
      rmSync(directory, { recursive: true, force: true })
    }
  }, 90_000)
})
