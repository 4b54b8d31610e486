import { randomUUID } from "node:crypto"
import * as http2 from "node:http2"
import { type Scenario, withId } from "./Scenarios.js"

/**
 * One call made and its answer checked before a scenario is loaded: the load generators count
 * only transport-level failures, so a request that the server refuses (a GraphQL error, a gRPC
 * status in the trailers) must be ruled out here, or the benchmark would time error replies.
 */
export const checkCall = async (scenario: Scenario, baseUrl: string): Promise<void> => {
  const id = randomUUID()
  const { body, path } = withId(scenario, id)
  const what = `${scenario.operation} over ${scenario.style} at ${baseUrl}`
  if (scenario.style === "grpc") {
    const status = await grpcStatus(baseUrl, path, scenario.headers, body)
    if (status !== "0") throw new Error(`${what}: grpc-status ${status}`)
    return
  }
  const init: RequestInit = { method: scenario.method, headers: scenario.headers }
  if (scenario.method !== "GET") init.body = body
  const response = await fetch(`${baseUrl}${path}`, init)
  const text = await response.text()
  if (response.status !== 200) throw new Error(`${what}: HTTP ${response.status} ${text}`)
  if (scenario.style === "graphql" && JSON.parse(text).errors !== undefined) throw new Error(`${what}: ${text}`)
}

const grpcStatus = (baseUrl: string, path: string, headers: Readonly<Record<string, string>>, body: Uint8Array) =>
  new Promise<string | undefined>((resolve, reject) => {
    const session = http2.connect(baseUrl)
    session.once("error", reject)
    const stream = session.request({ ":method": "POST", ":path": path, ...headers })
    let status: string | undefined
    stream.on("response", (h) => (status = h["grpc-status"] as string | undefined))
    stream.on("trailers", (t) => (status = t["grpc-status"] as string | undefined))
    stream.on("data", () => undefined)
    stream.once("error", reject)
    stream.once("end", () => {
      session.close()
      resolve(status)
    })
    stream.end(body)
  })
