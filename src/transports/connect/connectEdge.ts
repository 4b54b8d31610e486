import type { RequestHandler } from "../http/PortListener.js"
import { withSpecGrpcMessage } from "./grpcMessageEncoding.js"
import { withStrictJsonTimestamps } from "./jsonTimestamps.js"
import { withRequestGuards } from "./requestGuards.js"
import { withUndecodableAsInvalidArgument } from "./undecodableRequests.js"

/**
 * What stands between the port and connect-node's adapter, outermost first: grpc-message encoded
 * as the gRPC spec says (grpcMessageEncoding); a request without a host refused, and no
 * synchronous throw of the adapter left to crash the process (requestGuards); Timestamps in JSON
 * requests held to the domain's rule, with the field's path in the refusal (jsonTimestamps); and
 * undecodable request messages answered as invalid_argument rather than connect-es's internal
 * (undecodableRequests).
 */
export const connectEdge = (adapter: RequestHandler): RequestHandler =>
  withSpecGrpcMessage(withRequestGuards(withStrictJsonTimestamps(withUndecodableAsInvalidArgument(adapter))))
