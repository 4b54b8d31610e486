import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { patroniConfiguration } from "../support/Patroni.js"
import { primaryProxyConfiguration } from "../support/PrimaryHaProxy.js"

/**
 * docs/deployment.md shows the Patroni and haproxy configurations "as tested": the very text the
 * failover test writes, with the example's ports and paths. When the test's configuration
 * changes, this fails until the recipe does too.
 */
const recipe = readFileSync(new URL("../../docs/deployment.md", import.meta.url), "utf8")

const nodes = [
  { name: "pg0", port: 5432, apiPort: 8008 },
  { name: "pg1", port: 5433, apiPort: 8009 },
  { name: "pg2", port: 5434, apiPort: 8010 }
]

describe("the HA recipe in docs/deployment.md is the configuration the failover test runs", () => {
  it("Patroni's, for node pg0", () => {
    const tested = patroniConfiguration(
      { ...nodes[0]!, dataDir: "/var/lib/postgresql/15/pg0" },
      2379,
      "/var/run/postgresql",
      "/usr/lib/postgresql/15/bin"
    )
    expect(recipe).toContain("```yaml\n" + tested + "```")
  })

  it("haproxy's, routing to the node whose Patroni answers /primary", () => {
    expect(recipe).toContain("```\n" + primaryProxyConfiguration(nodes, 5000, 7000) + "```")
  })
})
