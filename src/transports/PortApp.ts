import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import type * as Rpc from "@effect/rpc/Rpc"
import { Cause, Context, Effect, Option, type Redacted, Runtime, Scope } from "effect"
import type * as http from "node:http"
import { file_grpc_health_v1_health, Health } from "../gen/grpc/health/v1/health_pb.js"
import * as reflectionV1 from "../gen/grpc/reflection/v1/reflection_pb.js"
import * as reflectionV1alpha from "../gen/grpc/reflection/v1alpha/reflection_pb.js"
import { DatabaseHealth, type Readiness, UnitOfWorkReferences } from "../operations/DatabaseAccess.js"
import { effectCall } from "./connect/EffectCall.js"
import { connectNodeAdapter, jsonOptionsFor } from "./connect/ConnectNodeAdapter.js"
import { healthService } from "./health/HealthService.js"
import { healthSubscription } from "./health/HealthSubscription.js"
import { healthWatch } from "./health/HealthWatch.js"
import { HealthWatches } from "./health/HealthWatches.js"
import { reflectionServices } from "./connect/ReflectionService.js"
import { graphqlHandler } from "./graphql/GraphqlHandler.js"
import { type AllowedHosts, hostCheck } from "./limits/AllowedHosts.js"
import { corsPolicy } from "./http/Cors.js"
import { bodyWaitLimit } from "./limits/BodyWaitLimit.js"
import { inFlightLimit } from "./limits/BodyWaitLimit.js"
import { CurrentJsonBounds, type JsonBounds } from "./limits/JsonBounds.js"
import type { QueryLimits } from "./limits/QueryLimits.js"
import { probes } from "./http/PortPipeline.js"
import { consolePages, type ConsoleSettings } from "./pages/Console.js"
import { pagesFor } from "./pages/Pages.js"
import { isRpcPath, pathOf } from "./http/Calls.js"
import { bearerAuth, type SchemaAccess } from "./http/BearerAuth.js"
import { portPipeline } from "./http/PortPipeline.js"
import type { TokenlessRates } from "./limits/TokenlessRate.js"
import { callTelemetry, loadTracing } from "./http/CallTelemetry.js"
import { metricsEndpoint } from "./http/MetricsEndpoint.js"
import { requestIdIn } from "./http/RequestId.js"
import { platformServices, restApp, restRoutes } from "./rest/RestApp.js"
import { refuse } from "./http/Refusal.js"
import { rpcEndpoint } from "./rpc/RpcEndpoint.js"
import type { ServiceApi } from "./ServiceApis.js"
import { deleteUnsetFiberRefs } from "./UnsetFiberRefs.js"
import type { OperationHandlers } from "../contract/OperationHandlers.js"
import type * as RpcGroup from "@effect/rpc/RpcGroup"
import { handlersOf } from "../operations/Operation.js"

export interface PortAppOptions {
  /** Largest request body (and gRPC message) accepted, in bytes; larger ones get resource_exhausted. */
  readonly readMaxBytes: number
  /** When set, every call but health and probes must carry `Authorization: Bearer <token>`. */
  readonly apiToken: Option.Option<Redacted.Redacted>
  /** Whether the schema documents (OpenAPI, reflection, GraphQL introspection) need the token too (BearerAuth.ts). */
  readonly schemaAccess: SchemaAccess
  /** Under SCHEMA_ACCESS=open, how many calls without the token the port lets through a second (TokenlessRate.ts). */
  readonly tokenlessRates: TokenlessRates
  /** Browser origins allowed by CORS; none by default, `*` for any. */
  readonly corsOrigins: ReadonlyArray<string>
  readonly graphqlLimits: QueryLimits
  /** Bounds on a JSON request body's nesting and values, in every style, checked before it is parsed. */
  readonly jsonBounds: JsonBounds
  /** Fields a binary protobuf request message may hold (Connect, gRPC, gRPC-Web), checked before it is decoded. */
  readonly protobufMaxFields: number
  /** Requests served at once on the port (HTTP/1.1 and HTTP/2 together); more get `unavailable`. */
  readonly maxRequestsInFlight: number
  /** Of those, the places calls still waiting for their body may hold (BodyWaitLimit.ts). */
  readonly maxRequestsAwaitingBody: number
  /** One log line per call. */
  readonly accessLog: boolean
  /** Whether a tracer is configured (main provides it): then every call gets a server span. */
  readonly tracing: boolean
  /** The host names the port answers to (ALLOWED_HOSTS); any other is refused. */
  readonly allowedHosts: AllowedHosts
  /** Where the services answer, when this port serves the onboarding console (the workflow port). */
  readonly console?: ConsoleSettings
  /** The console's origins, when this process serves one: its calls are allowed by CORS. */
  readonly consoleOrigins?: ReadonlyArray<string>
}

/**
 * Everything one service port answers: health probes; the service over Connect (JSON and binary),
 * gRPC and gRPC-Web, with gRPC health and server reflection beside it; REST; GraphQL at
 * `/graphql`; and `@effect/rpc` at `/rpc`.
 */
export const portApp = <Rpcs extends Rpc.Any>(api: ServiceApi<OperationHandlers<Rpcs>, Rpcs>, options: PortAppOptions) =>
  Effect.gen(function*() {
    const database = yield* DatabaseHealth
    const watches = yield* HealthWatches
    // Every call's fibers start from the runtimes captured within: without the fiber locals left
    // at their unset values, and in a context of only what calls read (`callContext`).
    yield* deleteUnsetFiberRefs
    const context = yield* callContext(api.rpcs)
    return yield* Effect.mapInputContext(port(api, options, database, watches), (_: Context.Context<never>) => context)
  })

const port = <Rpcs extends Rpc.Any>(
  api: ServiceApi<OperationHandlers<Rpcs>, Rpcs>,
  options: PortAppOptions,
  database: Readiness,
  watches: HealthWatches["Type"]
) =>
  Effect.gen(function*() {
    const runtime = yield* Effect.runtime<OperationHandlers<Rpcs>>()
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

    // connect-node's adapter with our corrections to it, each named in ConnectNodeAdapter.ts.
    const connect = connectNodeAdapter({
      readMaxBytes: options.readMaxBytes,
      jsonBounds: options.jsonBounds,
      protobufMaxFields: options.protobufMaxFields,
      routes: (router) => {
        api.connect.register(router, effectCall(runtime))
        router.service(Health, healthService([serviceName], database, runtime))
        router.service(reflectionV1.ServerReflection, reflection.v1)
        router.service(reflectionV1alpha.ServerReflection, reflection.v1alpha)
      },
      logFailure: (request, message, error) =>
        Runtime.runFork(runtime)(
          Effect.logError(message, Cause.die(error)).pipe(Effect.annotateLogs("requestId", requestIdIn(request.headers)))
        ),
      // Only procedure paths reach connect-node (`styles` below): one it does not route is answered
      // in the caller's protocol, as connect-node answers its own refusals.
      fallback: (request, response) =>
        refuse(request, response, {
          kind: "Unimplemented",
          message: `this port serves no procedure ${pathOf(request)} (it serves ${serviceName}, gRPC health and reflection)`
        })
    })

    // REST's and /rpc's body readers take the port's JSON bounds as they are built: set around
    // each call instead, the bounds would be one more fiber local every call's fibers copy.
    const platformApp = yield* Effect.flatMap(rpcEndpoint(api.rpcs), (rpc) => restApp(api.rest.api, api.rest.handlers, rpc)).pipe(
      Effect.locally(CurrentJsonBounds, options.jsonBounds)
    )
    // `Effect.locally` leaves the ref behind at its unset value, for the handler's runtime to capture.
    yield* deleteUnsetFiberRefs
    // The body limit goes into the runtime the handler captures, not around each request.
    const effectHttp = yield* NodeHttpServer.makeHandler(platformApp).pipe(
      HttpIncomingMessage.withMaxBodySize(Option.some(options.readMaxBytes)),
      Effect.provide(platformServices)
    )
    const graphql = graphqlHandler(api.graphql, runtime, {
      readMaxBytes: options.readMaxBytes,
      jsonBounds: options.jsonBounds,
      limits: options.graphqlLimits,
      service: serviceName
    })
    // Exactly the paths connect-node routes to Health (it matches the path as sent, up to `?`).
    const healthPaths = new Set(Health.methods.map((method) => `/${Health.typeName}/${method.name}`))
    // Watch streams: one subscription to the health state for the port, a cap for the process.
    const watchPath = `/${Health.typeName}/${Health.method.watch.name}`
    const watch = healthWatch({
      known: (service) => service === "" || service === serviceName,
      subscription: yield* healthSubscription(database.changes),
      watches,
      readMaxBytes: options.readMaxBytes,
      maxFields: options.protobufMaxFields,
      jsonOptions: jsonOptionsFor(Health.method.watch.input, options.jsonBounds),
      fallback: connect
    })
    // GraphiQL and /docs, named after this port's service, saying where the token goes when there is one.
    const pages = pagesFor(api, options.apiToken)
    const inFlight = inFlightLimit(options.maxRequestsInFlight)
    // Within the places the in-flight limit gives, the share calls waiting for their body may hold.
    const awaitingBody = bodyWaitLimit(options.maxRequestsAwaitingBody)
    return portPipeline({
      cors: corsPolicy(options.corsOrigins, options.consoleOrigins),
      probes: probes(isReady),
      pages: options.console === undefined
        ? pages
        : ((shown) => (request, response) => pages(request, response) || shown(request, response))(consolePages(options.console, Option.isSome(options.apiToken))),
      isHealth: (path) => healthPaths.has(path),
      health: (request, response) => (pathOf(request) === watchPath ? watch : connect)(request, response),
      misdirected: hostCheck(options.allowedHosts),
      authentication: bearerAuth(options.apiToken, options.schemaAccess, options.tokenlessRates),
      metrics: metricsEndpoint,
      telemetry: callTelemetry(runtime, serviceName, {
        accessLog: options.accessLog,
        tracing: options.tracing ? yield* loadTracing : undefined,
        route: restRoutes(api.rest.api)
      }),
      admission: (request, response) => inFlight(request, response) || awaitingBody(request, response),
      // The query string never chooses the style: `?x=a.b/c` must not turn a REST path into a procedure.
      styles: (request, response, path) => {
        if (isRpcPath(path)) return connect(request, response)
        if (path === "/graphql") return graphql(request, response)
        // The platform's handler is typed for HTTP/1.1; HTTP/2's compatibility API serves it as well.
        effectHttp(request as http.IncomingMessage, response as http.ServerResponse)
      }
    })
  }).pipe(
    // Untraced, every runtime captured above serves requests with tracing off: the HTTP and SQL
    // spans (URL parsing, header redaction, attributes) would be built on every request and
    // statement for nobody, and profiling showed them among the largest costs. Traced, the
    // pipeline makes each call's server span (CallTelemetry), so the platform's own is off.
    (app) => (options.tracing ? app : Effect.withTracerEnabled(app, false)),
    Effect.locally(HttpMiddleware.currentTracerDisabledWhen, () => true)
  )

/**
 * The context a port's calls run in: the operations table's handlers, the scope the port lives
 * in, and the references each unit of work reads; not the twenty-odd services that building the
 * process put beside them (the database client, the services, settings, health), which the
 * handlers have already taken what they need from.
 *
 * Why: Effect copies a context whole each time a service is added to it or merged into it, and a
 * REST call does so four times (the router's copy, the endpoint's merge with the context its group
 * was built in, two provided services), and each copy's size grows with the entries it holds
 * (the bytes a call: docs/benchmarks.md §5, "What each part of a call costs").
 */
export const callContext = <Rpcs extends Rpc.Any>(table: RpcGroup.RpcGroup<Rpcs>) =>
  Effect.map(Effect.context<OperationHandlers<Rpcs> | Scope.Scope | UnitOfWorkReferences>(), (context) => {
    const handlers = handlersOf(table)
    // test/transports/call-context.test.ts fails for a reference `src/` declares that is neither
    // among the unit of work's references nor named there as read only while the process starts.
    return Context.get(context, UnitOfWorkReferences).reduce(
      (kept, reference) => Context.add(kept, reference, Context.get(context, reference)),
      Context.make(handlers, Context.get(context, handlers)).pipe(Context.add(Scope.Scope, Context.get(context, Scope.Scope)))
    )
  })
