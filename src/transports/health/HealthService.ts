import { create } from "@bufbuild/protobuf"
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect"
import { Runtime } from "effect"
import {
  type Health,
  HealthCheckResponse_ServingStatus as Status,
  HealthCheckResponseSchema
} from "../../gen/grpc/health/v1/health_pb.js"
import type { Readiness } from "../../operations/DatabaseAccess.js"

const response = (ready: boolean) =>
  create(HealthCheckResponseSchema, { status: ready ? Status.SERVING : Status.NOT_SERVING })

/**
 * The standard gRPC health service's Check: the port as a whole ("") and each service on it are
 * SERVING exactly when the database answers. It reads the shared state of `DatabaseHealth` (no
 * query of its own), so a Check flood reaches the database at most once per
 * HEALTH_CHECK_INTERVAL_MS.
 *
 * Watch is not here: it is served before connect-node by HealthWatch.ts, at a fraction of what a
 * stream costs through connect-node. connect-node only sees the Watch requests it refuses for their
 * form (a method other than POST, a content type or compression it does not take), and would
 * answer `unimplemented` to any other.
 */
export const healthService = (
  serviceNames: ReadonlyArray<string>,
  database: Readiness,
  runtime: Runtime.Runtime<never>
): Partial<ServiceImpl<typeof Health>> => ({
  async check(request) {
    if (request.service !== "" && !serviceNames.includes(request.service)) {
      throw new ConnectError(`unknown service ${request.service}`, Code.NotFound)
    }
    return response(await Runtime.runPromise(runtime)(database.isReady))
  }
})
