import { connectNodeAdapter } from "@connectrpc/connect-node"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import type * as Rpc from "@effect/rpc/Rpc"
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import * as RpcServer from "@effect/rpc/RpcServer"
import { Effect, Option, type Redacted, Runtime } from "effect"
import type * as http from "node:http"
import { file_grpc_health_v1_health, Health } from "../gen/grpc/health/v1/health_pb.js"
import * as reflectionV1 from "../gen/grpc/reflection/v1/reflection_pb.js"
import * as reflectionV1alpha from "../gen/grpc/reflection/v1alpha/reflection_pb.js"
import { DatabaseHealth } from "../services/DatabaseHealth.js"
import { bearerCheck } from "./Auth.js"
import { requireBearer } from "./connect/authInterceptor.js"
import { effectCall } from "./connect/EffectCall.js"
import { connectEdge } from "./connect/connectEdge.js"
import { healthService } from "./connect/healthService.js"
import { reflectionServices } from "./connect/reflectionService.js"
import { graphqlHandler } from "./graphql/graphqlApis.js"
import { errorTable } from "./ErrorTable.js"
import { boundedBody } from "./http/BoundedBody.js"
import { corsPolicy } from "./http/Cors.js"
import type { RequestHandler } from "./http/PortListener.js"
import { probes } from "./http/Probes.js"
import { unauthenticated } from "./http/Unauthenticated.js"
import { errorReply, refuseOtherMethods } from "./rest/RestCall.js"
import type { ServiceApi } from "./ServiceApis.js"

export interface PortAppOptions {
  /** Largest request body (and gRPC message) accepted, in bytes; larger ones get resource_exhausted. */
  readonly readMaxBytes: number
  /** When set, every call but health and probes must carry `Authorization: Bearer <token>`. */
  readonly apiToken: Option.Option<Redacted.Redacted>
  /** Browser origins allowed by CORS; none by default, `*` for any. */
  readonly corsOrigins: ReadonlyArray<string>
  readonly graphqlLimits: { readonly maxDepth: number; readonly maxFields: number }
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

    const authorized = bearerCheck(options.apiToken)
    const connect = connectEdge(connectNodeAdapter({
      interceptors: authorized === undefined ? [] : [requireBearer(authorized, [Health.typeName])],
      readMaxBytes: options.readMaxBytes,
      routes: (router) => {
        api.connect.register(router, effectCall(runtime))
        router.service(Health, healthService([serviceName], isReady))
        router.service(reflectionV1.ServerReflection, reflection.v1)
        router.service(reflectionV1alpha.ServerReflection, reflection.v1alpha)
      },
      // Forward compatibility: a newer client's extra JSON fields are ignored, as binary protobuf does.
      jsonOptions: { ignoreUnknownFields: true },
      fallback: (_request, response) => {
        response.writeHead(404, { "content-type": "application/json" })
        response.end(notFoundBody)
      }
    }))

    const rpcApp = yield* RpcServer.toHttpApp(api.rpcs).pipe(Effect.provide(RpcSerialization.layerJson))
    // @effect/rpc reads the body with the platform's `request.text`, which over MAX_BODY_BYTES resets
    // the connection (see BoundedBody). So the body is read here and handed over already read; a
    // larger one gets 413 with the `{code, message, details}` body of /rpc's other HTTP refusals.
    const rpc = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const body = yield* boundedBody
      const read = HttpServerRequest.fromWeb(
        new Request(new URL(request.url, "http://localhost"), { method: request.method, headers: request.headers, body })
      )
      return yield* Effect.provideService(rpcApp, HttpServerRequest.HttpServerRequest, read)
    }).pipe(Effect.catchTags({
      BodyTooLarge: (tooLarge) =>
        Effect.succeed(errorReply(errorTable.ResourceExhausted.http, errorTable.ResourceExhausted.grpc, tooLarge.message)),
      BodyUnreadable: () => Effect.succeed(errorReply(400, 3, "the request body could not be read"))
    }))
    const app = api.rest.pipe(
      HttpRouter.post("/rpc", rpc),
      refuseOtherMethods("/rpc", ["POST"]),
      Effect.catchTag("RouteNotFound", () => Effect.succeed(errorReply(404, 5, "no such path on this port"))),
      Effect.tapDefect((cause) => Effect.logError("HTTP request failed", cause))
    )
    // The body limit goes into the runtime the handler captures, not around each request.
    const effectHttp = yield* NodeHttpServer.makeHandler(app).pipe(
      HttpIncomingMessage.withMaxBodySize(Option.some(options.readMaxBytes))
    )
    const graphql = graphqlHandler(api.graphql, runtime, {
      readMaxBytes: options.readMaxBytes,
      limits: options.graphqlLimits
    })
    const probe = probes(isReady)
    const cors = corsPolicy(options.corsOrigins)

    const handler: RequestHandler = (request, response) => {
      if (cors(request, response) || probe(request, response)) return
      const url = request.url ?? "/"
      // Connect, gRPC and gRPC-Web check the token in an interceptor, to answer in their own protocol.
      if (isRpcPath(url)) return connect(request, response)
      const isGraphql = url === "/graphql" || url.startsWith("/graphql?")
      if (authorized !== undefined && !authorized(request.headers["authorization"])) {
        return unauthenticated(response, isGraphql ? "graphql" : "json")
      }
      if (isGraphql) return graphql(request, response)
      // The platform's handler is typed for HTTP/1.1; HTTP/2's compatibility API serves it as well.
      effectHttp(request as http.IncomingMessage, response as http.ServerResponse)
    }
    return handler
  }).pipe(
    // Every runtime captured above serves requests with tracing off: no tracer or exporter is
    // wired, so the HTTP and SQL spans (URL parsing, header redaction, attributes) would be built
    // on every request and statement for nobody. Profiling showed them among the largest costs.
    Effect.withTracerEnabled(false),
    Effect.locally(HttpMiddleware.currentTracerDisabledWhen, () => true)
  )
