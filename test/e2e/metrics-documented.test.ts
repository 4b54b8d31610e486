import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { startAllInOne, stopProcess } from "./support/Processes.js"

const root = fileURLToPath(new URL("../../", import.meta.url))

/** Every metric name in docs/observability.md's tables (those headed `| metric |`), as written. */
const documented = (): Set<string> => {
  const names = new Set<string>()
  let inTable = false
  for (const line of readFileSync(`${root}docs/observability.md`, "utf8").split("\n")) {
    if (line.startsWith("| metric |")) inTable = true
    else if (!line.startsWith("|")) inTable = false
    else if (inTable && !line.startsWith("|---")) {
      for (const [, name] of line.split("|")[1]!.matchAll(/`([^`]+)`/g)) names.add(name!)
    }
  }
  return names
}

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : []
  )

/** The metrics src/ declares, each under its name: some show only once what they count happens. */
const declared = (): Set<string> =>
  new Set(sourceFiles(`${root}src`).flatMap((file) =>
    [...readFileSync(file, "utf8").matchAll(/Metric\.(?:counter|gauge|histogram|summary|frequency)\(\s*"([^"]+)"/g)].map(([, name]) => name!)
  ))

const missingFrom = (names: Iterable<string>, from: Set<string>) => [...names].filter((name) => !from.has(name)).sort()

describe("docs/observability.md lists the metrics /metrics exports", () => {
  it("every metric a running process exports or src/ declares is documented, and every documented one is either", async () => {
    const { org, running } = await startAllInOne({ ACCESS_LOG: "off" })
    try {
      await fetch(`${org}/orgs/${crypto.randomUUID()}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "Acme" })
      })
      // The pool's gauges are sampled every second: the scrape waits for their first sample.
      const scrape = async () => (await fetch(`${org}/metrics`)).text()
      await expect.poll(scrape, { timeout: 30_000, interval: 100 }).toMatch(/^onboarding_db_pool_waiting /m)
      const exported = new Set([...(await scrape()).matchAll(/^# TYPE (\S+) /gm)].map(([, name]) => name!))
      const inDocs = documented()
      const inSource = declared()
      expect(exported.size).toBeGreaterThan(10)
      expect(missingFrom(exported, inDocs), "exported, not documented").toEqual([])
      expect(missingFrom(inSource, inDocs), "declared in src, not documented").toEqual([])
      expect(missingFrom(inDocs, new Set([...exported, ...inSource])), "documented, neither exported nor declared").toEqual([])
    } finally {
      await stopProcess(running)
    }
  }, 120_000)
})
