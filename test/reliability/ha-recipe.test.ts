import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { serviceProxyConfiguration } from "../support/HaProxy.js"
import { patroniConfiguration } from "../support/Patroni.js"
import { primaryProxyConfiguration } from "../support/PrimaryHaProxy.js"

/**
 * docs/deployment.md shows the Patroni and haproxy configurations "as tested": the very text the
 * failover and topology tests write, with the example's ports and paths. When the test's configuration
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

/** The example of the replicas' balancer: each service's port, its two replicas on ports of their own. */
const replicated = [
  { name: "org", port: 9090, replicaPorts: [19090, 29090] },
  { name: "profile", port: 9091, replicaPorts: [19091, 29091] },
  { name: "license", port: 9092, replicaPorts: [19092, 29092] },
  { name: "workflow", port: 8081, replicaPorts: [18081, 28081] }
]

describe("the replicas' balancer in docs/deployment.md is the configuration the topology test runs", () => {
  it("haproxy's, one frontend per service over its two replicas, checking /readyz", () => {
    expect(recipe).toContain("```\n" + serviceProxyConfiguration(replicated, replicated.map((service) => service.port), 7001) + "```")
  })
})
