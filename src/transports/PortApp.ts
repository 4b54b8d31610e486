import { connectNodeAdapter } from "@connectrpc/connect-node"
import { HttpIncomingMessage, HttpRouter } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { type Rpc, RpcSerialization, RpcServer } from "@effect/rpc"
import { Effect, Option, Runtime } from "effect"
import type * as http from "node:http"
import { file_grpc_health_v1_health, Health } from "../gen/grpc/health/v1/health_pb.js"
import * as reflectionV1 from "../gen/grpc/reflection/v1/reflection_pb.js"
import * as reflectionV1alpha from "../gen/grpc/reflection/v1alpha/reflection_pb.js"
import { DatabaseHealth } from "../services/DatabaseHealth.js"
import { effectCall } from "./connect/EffectCall.js"
import { withSpecGrpcMessage } from "./connect/grpcMessageEncoding.js"
import { healthService } from "./connect/healthService.js"
import { reflectionServices } from "./connect/reflectionService.js"
import { graphqlHandler } from "./graphql/graphqlApis.js"
import type { RequestHandler } from "./http/PortListener.js"
import { probes } from "./http/Probes.js"
import { errorReply, refuseOtherMethods } from "./rest/RestCall.js"
import type { ServiceApi } from "./ServiceApis.js"

export interface PortAppOptions {
  /** Largest request body accepted, in bytes; larger ones are refused with resource_exhausted. */
  readonly readMaxBytes: number
}

const notFoundBody = JSON.stringify({ code: 5, message: "no such path on this port", details: [] })

/** Connect, gRPC and gRPC-Web address `/<package>.<Service>/<Method>`; no REST path has a dot there. */
const isRpcPath = (path: string) => path.indexOf(".") !== -1 && path.indexOf(".") < path.indexOf("/", 1)

/**
 * Everything one service port answers: health probes; the service over Connect (JSON and binary),
 * gRPC and gRPC-Web, with gRPC health and server reflection beside it; REST; GraphQL at
 * `/graphql`; and `@effect/rpc` at `/rpc`.
 */
export const portApp = <R, Rpcs extends Rpc.Any>(api: ServiceApi<R, Rpcs>, options: PortAppOptions) =>
  Effect.gen(function*() {
    const runtime = yield* Effect.runtime<R | DatabaseHealth>()
    const database = yield* DatabaseHealth
    const isReady = () => Runtime.runPromise(runtime)(database.isReady)
    const serviceName = api.connect.service.typeName
    const reflection = reflectionServices(
      [
        api.connect.service.file,
        file_grpc_health_v1_health,
        reflectionV1.file_grpc_reflection_v1_reflection,
        reflectionV1alpha.file_grpc_reflection_v1alpha_reflection
      ],
      [serviceName, Health.typeName, reflectionV1.ServerReflection.typeName, reflectionV1alpha.ServerReflection.typeName]
    )

    const connect = withSpecGrpcMessage(connectNodeAdapter({
      routes: (router) => {
        api.connect.register(router, effectCall(runtime))
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
    }))

    const rpc = yield* RpcServer.toHttpApp(api.rpcs).pipe(Effect.provide(RpcSerialization.layerJson))
    const app = api.rest.pipe(
      HttpRouter.post("/rpc", rpc),
      refuseOtherMethods("/rpc", ["POST"]),
      Effect.catchTag("RouteNotFound", () => Effect.succeed(errorReply(404, 5, "no such path on this port"))),
      Effect.tapDefect((cause) => Effect.logError("HTTP request failed", cause)),
      HttpIncomingMessage.withMaxBodySize(Option.some(options.readMaxBytes))
    )
    const effectHttp = yield* NodeHttpServer.makeHandler(app)
    const graphql = graphqlHandler(api.graphql, runtime, { readMaxBytes: options.readMaxBytes })
    const probe = probes(isReady)

    const handler: RequestHandler = (request, response) => {
      if (probe(request, response)) return
      const url = request.url ?? "/"
      if (isRpcPath(url)) return connect(request, response)
      if (url === "/graphql" || url.startsWith("/graphql?")) return graphql(request, response)
      // The platform's handler is typed for HTTP/1.1; HTTP/2's compatibility API serves it as well.
      effectHttp(request as http.IncomingMessage, response as http.ServerResponse)
    }
    return handler
  })
