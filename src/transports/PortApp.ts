import { connectNodeAdapter } from "@connectrpc/connect-node"
import { Effect, Runtime } from "effect"
import { file_grpc_health_v1_health, Health } from "../gen/grpc/health/v1/health_pb.js"
import * as reflectionV1 from "../gen/grpc/reflection/v1/reflection_pb.js"
import * as reflectionV1alpha from "../gen/grpc/reflection/v1alpha/reflection_pb.js"
import { DatabaseHealth } from "../services/DatabaseHealth.js"
import type { ConnectApi } from "./connect/connectRoutes.js"
import { effectCall } from "./connect/EffectCall.js"
import { withSpecGrpcMessage } from "./connect/grpcMessageEncoding.js"
import { healthService } from "./connect/healthService.js"
import { reflectionServices } from "./connect/reflectionService.js"
import type { RequestHandler } from "./http/PortListener.js"
import { probes } from "./http/Probes.js"

export interface PortAppOptions {
  /** Largest request body accepted, in bytes; larger ones are refused with resource_exhausted. */
  readonly readMaxBytes: number
}

const notFoundBody = JSON.stringify({ code: 5, message: "no such path on this port", details: [] })

/**
 * Everything one service port answers: health probes, then the service over Connect (JSON and
 * binary), gRPC and gRPC-Web, with gRPC health and server reflection beside it.
 */
export const portApp = <R>(api: ConnectApi<R>, options: PortAppOptions) =>
  Effect.gen(function*() {
    const runtime = yield* Effect.runtime<R | DatabaseHealth>()
    const database = yield* DatabaseHealth
    const isReady = () => Runtime.runPromise(runtime)(database.isReady)
    const serviceName = api.service.typeName
    const reflection = reflectionServices(
      [
        api.service.file,
        file_grpc_health_v1_health,
        reflectionV1.file_grpc_reflection_v1_reflection,
        reflectionV1alpha.file_grpc_reflection_v1alpha_reflection
      ],
      [serviceName, Health.typeName, reflectionV1.ServerReflection.typeName, reflectionV1alpha.ServerReflection.typeName]
    )

    const connect = connectNodeAdapter({
      routes: (router) => {
        api.register(router, effectCall(runtime))
        router.service(Health, healthService([serviceName], isReady))
        router.service(reflectionV1.ServerReflection, reflection.v1)
        router.service(reflectionV1alpha.ServerReflection, reflection.v1alpha)
      },
      // Forward compatibility: a newer client's extra JSON fields are ignored, as binary protobuf does.
      jsonOptions: { ignoreUnknownFields: true },
      readMaxBytes: options.readMaxBytes,
      fallback: (_request, response) => {
        response.writeHead(404, { "content-type": "application/json" })
        response.end(notFoundBody)
      }
    })
    const probe = probes(isReady)

    const grpcSafeConnect = withSpecGrpcMessage(connect)
    const handler: RequestHandler = (request, response) => {
      if (probe(request, response)) return
      grpcSafeConnect(request, response)
    }
    return handler
  })
