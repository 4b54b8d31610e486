import { codeToString } from "@connectrpc/connect/protocol-connect"
import { errorTable } from "../../ErrorTable.js"
import type { ErrorCorrection } from "./RouterError.js"

/**
 * Correction 5, undecodableAsInternal: connect-es answers a request message it cannot decode as
 * `internal` (Connect: HTTP 500; gRPC and gRPC-Web: status 13) — garbage or truncated protobuf
 * ("parse binary: premature EOF"), an envelope flagged compressed with no `grpc-encoding` — though
 * the caller is at fault (contract §8 wants invalid_argument, as connect-es answers for bad
 * JSON). It decodes before any interceptor runs and its binary read options have no hook, so the
 * router's response is re-coded before it is written (CorrectedAnswer.ts): the message stays, the
 * code becomes invalid_argument. Such a failure always comes before any output, so it is the first
 * (and only) chunk of the body, or the trailers as the router hands them over.
 * A Connect GET whose `message` is not base64 (with `base64=1`) is worse off: the decoder's plain
 * Error becomes "internal error", which nothing tells apart from a real defect, so that request is
 * refused before the router (getQueryRefusal.ts).
 */

const decodeFailure = /^(parse binary: |received compressed envelope, but do not know how to decompress$)/

const internal = codeToString(errorTable.Internal.connect)
const invalidArgument = codeToString(errorTable.InvalidArgument.connect)

export const undecodableAsInternal: ErrorCorrection = (error) =>
  error.code === internal && decodeFailure.test(error.message) ? { ...error, code: invalidArgument } : undefined
