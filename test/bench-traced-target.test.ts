import { describe, expect, it } from "@effect/vitest"
import type { Cell, Results, TracedWindow } from "../bench/Results.js"
import { targets } from "../bench/Targets.js"

const measured = (requests: number) => ({ requests, errors: 0, seconds: 3, rps: requests / 3, p50Ms: 1, p99Ms: 2 })

const c1 = (server: Cell["server"], operation: Cell["operation"], requests: number, cpuMicrosPerRequest: number): Cell => ({
  server,
  operation,
  style: "rest",
  concurrency: 1,
  measured: measured(requests),
  cpuMicrosPerRequest
})

const window = (server: TracedWindow["server"], operation: TracedWindow["operation"], requests: number, microsPerCall: number): TracedWindow => ({
  server,
  operation,
  style: "rest",
  requests,
  cpuMicros: requests * microsPerCall
})

const processOf = (server: Cell["server"]) => ({ server, name: server, readyMillis: 1, idleMiB: 1, loadMiB: 1, errorsLogged: 0 })

/** One c1 window a process per operation, as a run measures them; the traced one is unlucky in GetOrg's. */
const cells = [
  c1("services-pg", "GetOrg", 1_000, 600),
  c1("services-pg-traced", "GetOrg", 500, 1_500),
  c1("services-pg", "CreateOrg", 400, 1_000),
  c1("services-pg-traced", "CreateOrg", 400, 1_200)
]

const restTraced = (results: Results) => targets(results).find((t) => t.target.startsWith("rest CPU us per call traced"))!

/**
 * The traced target reads every c1 window of the org process, the c1 cell and the further
 * alternated windows, each call counted once: one window's luck does not decide it.
 */
describe("the traced target", () => {
  const base = { cells, processes: [processOf("services-pg"), processOf("services-pg-traced")], concurrencies: [1] }

  it("reads the c1 cells alone when a report has no further windows", () => {
    const target = restTraced(base)
    expect(target.verdict).toBe("NO")
    expect(target.detail).toContain("highest 2.50 (GetOrg: 1500 vs 600 us)")
  })

  it("counts every call of the further windows with the cells'", () => {
    const target = restTraced({
      ...base,
      tracedWindows: [
        window("services-pg", "GetOrg", 1_000, 650),
        window("services-pg-traced", "GetOrg", 1_000, 850),
        window("services-pg-traced", "GetOrg", 1_000, 850),
        window("services-pg", "GetOrg", 1_000, 650)
      ]
    })
    // Traced (500 × 1,500 + 2,000 × 850) / 2,500 = 980; untraced (1,000 × 600 + 2,000 × 650) / 3,000 = 633.
    expect(target.detail).toContain("highest 1.55 (GetOrg: 980 vs 633 us, 3 windows each)")
    expect(target.verdict).toBe("goal missed")
  })
})
