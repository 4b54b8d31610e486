import { randomUUID } from "node:crypto"
import { GrpcCode, type StyleClient, StyleError } from "../e2e/support/StyleClient.js"
import { type Acknowledged, describeError } from "./Load.js"

const period = { start: "2023-11-16T12:00:00Z", end: "2024-11-16T12:00:00Z" }

/** Attempts per workflow, the first included; the waits between them double from 50 ms. */
const attemptsPerWorkflow = 6

/**
 * A connection that failed under the call, however a client reports it: connect-node turns a
 * reset HTTP/1.1 socket into `aborted` ("socket hang up"), and a stream reset with REFUSED_STREAM
 * or an HTTP/2 stream that ends with no gRPC status (haproxy closing the stream of a replica
 * killed mid-answer: "protocol error: missing status") into `internal`, where gRPC's own mapping
 * says `unavailable`: no answer came.
 */
const connectionFailure = /socket hang up|other side closed|ECONNRESET|ECONNREFUSED|EPIPE|REFUSED_STREAM|missing status/

/**
 * Worth trying again with the same request: the service said `unavailable` (a proxy's 502/503
 * is that too), or no answer came at all (the connection broke, was refused or reset). Anything
 * else is an answer, and a final one.
 */
const retryable = (error: unknown) =>
  !(error instanceof StyleError) || error.code === GrpcCode.Unavailable || connectionFailure.test(error.message)

export interface RetryingResult {
  /** Workflows begun (each with its own workflow id). */
  sent: number
  /** Calls made, retries included. */
  attempts: number
  /** Calls that failed and were tried again. */
  retried: number
  readonly acknowledged: Array<Acknowledged>
  /** Workflows given up on: a final error, or still failing after the last attempt. */
  readonly failures: Array<{ readonly style: string; readonly error: string }>
  /** Each error a client saw (retried or final), by its text, with how often. */
  readonly errorsSeen: Record<string, number>
}

/**
 * What a careful client does: each workflow carries a workflow id of its own choosing, and is sent
 * again, the same request with the same id, when the call fails without an answer or with
 * `unavailable`: the service then answers with the first run's result if there was one, so a
 * retry never onboards twice. `concurrency` loops, round robin over `clients`, until `running()`
 * says stop.
 */
export const retryingWorkflows = async (options: {
  readonly clients: ReadonlyArray<StyleClient>
  readonly concurrency: number
  readonly running: () => boolean
}): Promise<RetryingResult> => {
  const result: RetryingResult = { sent: 0, attempts: 0, retried: 0, acknowledged: [], failures: [], errorsSeen: {} }
  const worker = async (index: number) => {
    const client = options.clients[index % options.clients.length]!
    while (options.running()) {
      const workflowId = randomUUID()
      const orgName = `topology ${workflowId}`
      const request = { workflowId, license: period, org: { name: orgName }, profile: { fullName: "New Hire" } }
      result.sent++
      for (let attempt = 1;; attempt++) {
        result.attempts++
        try {
          const answer = await client.createWorkflow(request)
          result.acknowledged.push({ kind: "workflow", id: answer.workflowId, ...answer, orgName })
          break
        } catch (error) {
          const text = `${client.style}: ${error instanceof StyleError ? `code ${error.code} ` : ""}${describeError(error)}`
          result.errorsSeen[text] = (result.errorsSeen[text] ?? 0) + 1
          if (!retryable(error) || attempt === attemptsPerWorkflow) {
            result.failures.push({ style: client.style, error: text })
            break
          }
          result.retried++
          await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** (attempt - 1)))
        }
      }
    }
  }
  await Promise.all(Array.from({ length: options.concurrency }, (_, i) => worker(i)))
  return result
}
