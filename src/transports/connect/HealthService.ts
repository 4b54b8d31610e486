import { create } from "@bufbuild/protobuf"
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect"
import { Effect, Runtime, Stream } from "effect"
import {
  type Health,
  HealthCheckResponse_ServingStatus as Status,
  HealthCheckResponseSchema
} from "../../gen/grpc/health/v1/health_pb.js"
import type { DatabaseHealth } from "../../services/DatabaseHealth.js"

const response = (ready: boolean) =>
  create(HealthCheckResponseSchema, { status: ready ? Status.SERVING : Status.NOT_SERVING })

/** Completes when the call's signal aborts (the client went away, or the server is stopping). */
const aborted = (signal: AbortSignal) =>
  Effect.async<void>((resume) => {
    if (signal.aborted) return resume(Effect.void)
    const onAbort = () => resume(Effect.void)
    signal.addEventListener("abort", onAbort, { once: true })
    return Effect.sync(() => signal.removeEventListener("abort", onAbort))
  })

/**
 * The standard gRPC health service: the port as a whole ("") and each service on it are SERVING
 * exactly when the database answers. Check and Watch read the shared state of `DatabaseHealth`
 * (no query of their own), so neither a Check flood nor thousands of Watch streams reach the
 * database more than once per HEALTH_CHECK_INTERVAL_MS.
 */
export const healthService = (
  serviceNames: ReadonlyArray<string>,
  database: DatabaseHealth,
  runtime: Runtime.Runtime<never>
): ServiceImpl<typeof Health> => {
  const known = (service: string) => service === "" || serviceNames.includes(service)

  return {
    async check(request) {
      if (!known(request.service)) throw new ConnectError(`unknown service ${request.service}`, Code.NotFound)
      return response(await Runtime.runPromise(runtime)(database.isReady))
    },

    async *watch(request, context) {
      if (!known(request.service)) {
        yield create(HealthCheckResponseSchema, { status: Status.SERVICE_UNKNOWN })
        return
      }
      // Ends, rather than waits for the next change, when the call is cancelled: otherwise a
      // watcher gone away would stay subscribed until the database next changed state.
      const statuses = database.changes.pipe(Stream.interruptWhen(aborted(context.signal)))
      for await (const ready of Stream.toAsyncIterableRuntime(statuses, runtime)) yield response(ready)
    }
  }
}
