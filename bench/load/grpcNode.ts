import { fileURLToPath } from "node:url"
import type { Scenario } from "../Scenarios.js"
import { grpcConnections } from "./h2load.js"
import { type Load, type Measured, runTool } from "./Measured.js"

const generator = fileURLToPath(new URL("./grpcLoad.js", import.meta.url))

/** gRPC creates need a fresh id per call, which h2load cannot send: a Node generator does those. */
export const grpcNode = async (scenario: Scenario, baseUrl: string, load: Load): Promise<Measured> => {
  const out = await runTool(process.execPath, [
    generator,
    JSON.stringify({
      url: baseUrl,
      path: scenario.path,
      operation: scenario.operation,
      concurrency: load.concurrency,
      connections: grpcConnections(load.concurrency),
      seconds: load.seconds,
      // The scenario is warm already; a warm-up here would use CPU that no counted request did.
      warmupSeconds: 0
    })
  ])
  return JSON.parse(out.trim().split("\n").at(-1)!) as Measured
}
