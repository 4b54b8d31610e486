import { overMaxBodyBytes } from "../../limits/BoundedBody.js"
import type { ErrorCorrection } from "./RouterError.js"

/**
 * Correction 9, readMaxBytesInMessage: connect-es refuses a message over its `readMaxBytes` with
 * "message size 358 is larger than configured readMaxBytes 200", naming an option of its own that
 * neither the caller nor the operator knows; ours is MAX_BODY_BYTES, which sets it. The message is
 * re-worded on the router's answer before it is written (CorrectedAnswer.ts), its code
 * (resource_exhausted) kept. A size check of our own ahead of the router would answer Connect with
 * the error table's HTTP 413 instead of connect-es's 429 for that code.
 */
const overReadMaxBytes = /^message size (?:\d+ )?is larger than configured readMaxBytes (\d+)$/

export const readMaxBytesInMessage: ErrorCorrection = (error) => {
  const limit = overReadMaxBytes.exec(error.message)?.[1]
  return limit === undefined ? undefined : { ...error, message: overMaxBodyBytes(Number(limit), "request message") }
}
