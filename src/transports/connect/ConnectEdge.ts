import type { RequestHandler } from "../http/PortListener.js"
import { withSpecGrpcMessage } from "./GrpcMessageEncoding.js"
import { withStrictJsonTimestamps } from "./JsonTimestamps.js"
import { withRequestGuards } from "./RequestGuards.js"
import { withUtf8GetMessages } from "./StrictUtf8.js"
import { withTimerSafeDeadlines } from "./TimerSafeDeadlines.js"
import { withUndecodableAsInvalidArgument } from "./UndecodableRequests.js"

/**
 * What stands between the port and connect-node's adapter, outermost first: grpc-message encoded
 * as the gRPC spec says (grpcMessageEncoding); a request without a host refused, and no
 * synchronous throw of the adapter left to crash the process (requestGuards); deadlines too far
 * away for a timer dropped rather than expired at once (timerSafeDeadlines); a Connect GET whose
 * JSON message is not UTF-8 refused (strictUtf8, which also holds the strict decoding of every
 * other JSON message); Timestamps in JSON requests held to the domain's rule, with the field's
 * path in the refusal (jsonTimestamps); and undecodable request messages answered as
 * invalid_argument rather than connect-es's internal (undecodableRequests).
 */
export const connectEdge = (adapter: RequestHandler): RequestHandler =>
  withSpecGrpcMessage(
    withRequestGuards(
      withTimerSafeDeadlines(
        withUtf8GetMessages(
          withStrictJsonTimestamps(
            withUndecodableAsInvalidArgument(adapter)
          )
        )
      )
    )
  )
