import { create } from "@bufbuild/protobuf"
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect"
import { setTimeout as sleep } from "node:timers/promises"
import {
  type Health,
  HealthCheckResponse_ServingStatus as Status,
  HealthCheckResponseSchema
} from "../../gen/grpc/health/v1/health_pb.js"

/** How often Watch re-checks the database to notice a change. */
const watchInterval = 2_000

/**
 * The standard gRPC health service: the port as a whole ("") and each service on it are SERVING
 * exactly when the database answers.
 */
export const healthService = (
  serviceNames: ReadonlyArray<string>,
  isReady: () => Promise<boolean>
): ServiceImpl<typeof Health> => {
  const known = (service: string) => service === "" || serviceNames.includes(service)
  const status = async () => ((await isReady()) ? Status.SERVING : Status.NOT_SERVING)

  return {
    async check(request) {
      if (!known(request.service)) throw new ConnectError(`unknown service ${request.service}`, Code.NotFound)
      return create(HealthCheckResponseSchema, { status: await status() })
    },

    async *watch(request, context) {
      if (!known(request.service)) {
        yield create(HealthCheckResponseSchema, { status: Status.SERVICE_UNKNOWN })
        return
      }
      let last: Status | undefined
      while (!context.signal.aborted) {
        const now = await status()
        if (now !== last) yield create(HealthCheckResponseSchema, { status: now })
        last = now
        await sleep(watchInterval, undefined, { signal: context.signal }).catch(() => undefined)
      }
    }
  }
}
