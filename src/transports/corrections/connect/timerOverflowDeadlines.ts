/**
 * Correction 2, timerOverflowDeadlines: connect-node arms one `setTimeout` per call for the
 * client's deadline, and Node fires a timer at once when its delay does not fit a signed 32-bit
 * count of milliseconds (about 24.8 days): `grpc-timeout: 600H` or `connect-timeout-ms` above
 * 2147483647 expired as the call began. Such a deadline is dropped, as if none was set: no call of
 * ours runs longer than its operation budget (services/Transient.ts, seconds), so a deadline weeks
 * away can never be the one that ends a call. A malformed value is left for connect-node to refuse.
 */

export const maxTimerMillis = 2_147_483_647

const grpcUnitMillis: Record<string, number> = { H: 3_600_000, M: 60_000, S: 1_000, m: 1, u: 1e-3, n: 1e-6 }

const deadlineMillis: ReadonlyArray<readonly [string, (value: string) => number | undefined]> = [
  ["grpc-timeout", (value) => {
    const match = /^(\d{1,8})([HMSmun])$/.exec(value)
    return match === null ? undefined : Number(match[1]) * grpcUnitMillis[match[2]!]!
  }],
  ["connect-timeout-ms", (value) => (/^\d{1,10}$/.test(value) ? Number(value) : undefined)]
]

/**
 * Drops from `header` (the router's copy) a deadline over the timer's range, read from `raw`, the
 * Node request's own headers (a plain object: no lookup in the copy for a call that sets none).
 */
export const dropTimerOverflowDeadlines = (raw: Readonly<Record<string, string | Array<string> | undefined>>, header: Headers): void => {
  for (const [name, millis] of deadlineMillis) {
    if (raw[name] === undefined) continue
    const value = header.get(name)
    if (value !== null && (millis(value) ?? 0) > maxTimerMillis) header.delete(name)
  }
}
