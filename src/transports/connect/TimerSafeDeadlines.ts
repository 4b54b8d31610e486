import type { RequestHandler } from "../http/PortListener.js"

/**
 * connect-node arms one `setTimeout` per call for the client's deadline, and Node fires a timer at
 * once when its delay does not fit a signed 32-bit count of milliseconds (about 24.8 days): a
 * `grpc-timeout` of 597H or more, or a `connect-timeout-ms` above 2147483647, expired as the call
 * began and was answered as if the client had given up.
 *
 * Such a deadline is dropped here, as if the client had set none. Nothing is lost by that: no call
 * of ours runs longer than its operation budget (OperationBudget in services/Transient.ts, seconds),
 * so a deadline weeks away can never be the one that ends a call.
 */

const maxTimerMillis = 2_147_483_647

const grpcUnitMillis: Record<string, number> = { H: 3_600_000, M: 60_000, S: 1_000, m: 1, u: 1e-3, n: 1e-6 }

/** The deadline headers of gRPC (and gRPC-Web) and of Connect, read as connect-node reads them. */
const deadlineHeaders: ReadonlyArray<readonly [string, (value: string) => number | undefined]> = [
  ["grpc-timeout", (value) => {
    const match = /^(\d{1,8})([HMSmun])$/.exec(value)
    return match === null ? undefined : Number(match[1]) * grpcUnitMillis[match[2]!]!
  }],
  ["connect-timeout-ms", (value) => (/^\d{1,10}$/.test(value) ? Number(value) : undefined)]
]

export const withTimerSafeDeadlines = (handler: RequestHandler): RequestHandler => (request, response) => {
  for (const [name, millis] of deadlineHeaders) {
    const value = request.headers[name]
    // A malformed value is left for connect-node to refuse with its own invalid_argument.
    if (typeof value === "string" && (millis(value) ?? 0) > maxTimerMillis) delete request.headers[name]
  }
  handler(request, response)
}
