import type * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpApp from "@effect/platform/HttpApp"
import type * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Etag from "@effect/platform/Etag"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodeHttpPlatform from "@effect/platform-node/NodeHttpPlatform"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect, Layer, type Scope } from "effect"
import { callOf, logCallError, withinCall } from "../http/Calls.js"
import { requestIdIn } from "../http/RequestId.js"
import { errorReply, methodNotAllowed } from "./RestCall.js"

/**
 * The path patterns of an API's endpoints (`/orgs/:id`), each with the methods it takes. A
 * trailing slash matches as the router matches it (it ignores one): `PUT /orgs/` is the list's
 * path with another method, as `GET /orgs/` is the list.
 */
const routesOf = (api: HttpApi.HttpApi.Any) => {
  const routes = new Map<string, { readonly pattern: RegExp; readonly methods: Array<string> }>()
  for (const group of Object.values((api as HttpApi.HttpApi.AnyWithProps).groups)) {
    for (const endpoint of Object.values(group.endpoints)) {
      const route = routes.get(endpoint.path) ?? {
        pattern: new RegExp(`^${endpoint.path.replace(/:[^/]+/g, "[^/]+")}/?$`),
        methods: []
      }
      route.methods.push(endpoint.method)
      routes.set(endpoint.path, route)
    }
  }
  return [...routes.values()]
}

/** Whether a path's percent-escapes decode to UTF-8 (`%ff%fe` does not). */
const decodes = (path: string): boolean => {
  try {
    decodeURIComponent(path)
    return true
  } catch {
    return false
  }
}

/**
 * The answers the platform would give in its own form, given in the REST form: a path whose
 * escapes are not UTF-8 is 400 (the router finds no route for it, and it would otherwise read as
 * its route with another method), a path of this port with another method is 405 with `Allow`,
 * any other path 404.
 */
const restRefusals = (api: HttpApi.HttpApi.Any) => {
  const routes = routesOf(api)
  const answer = (error: unknown) => {
    if (error instanceof HttpServerError.RouteNotFound) {
      const path = error.request.url.split("?", 1)[0]!
      if (!decodes(path)) return errorReply("InvalidArgument", "the path is not valid percent-encoded UTF-8")
      const allowed = routes.filter((route) => route.pattern.test(path)).flatMap((route) => route.methods)
      return allowed.length > 0 ? methodNotAllowed(allowed) : errorReply("NotFound", "no such path on this port")
    }
    return undefined
  }
  return HttpApiBuilder.middleware((app) =>
    Effect.catchAll(app, (error) => {
      const reply = answer(error)
      return reply === undefined ? Effect.fail(error) : Effect.succeed(reply)
    })
  )
}

/** The route (`/orgs/{id}`) of the API's path that a request's method and path match, if any. */
export const restRoutes = (api: HttpApi.HttpApi.Any) => {
  const routes = Object.entries(OpenApi.fromApi(api as never).paths).flatMap(([route, item]) => {
    const pattern = new RegExp(`^${route.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}$`)
    return Object.keys(item).map((method) => ({ method: method.toUpperCase(), pattern, route }))
  })
  return (method: string, path: string): string | undefined =>
    routes.find((each) => each.method === method && each.pattern.test(path))?.route
}

/**
 * The document's security schemes: the bearer token (API_TOKEN). Swagger UI's "Authorize" button
 * is wired to it, and sends what a person gives it with every call. Also shown by the /docs page
 * while the document itself waits for the token (pages/BrowserScripts.ts).
 */
export const securitySchemes = {
  bearer: { type: "http", scheme: "bearer", description: "API_TOKEN, when the server has one" }
} as const

/**
 * The OpenAPI 3.1 document of a port's REST operations, with two corrections of what the platform
 * writes: its own decode-error body on every 400 is taken out (the handlers decode with the
 * operations' rules and answer a 400 with the REST error body), and so is an empty `security`;
 * a path parameter's example is also given as the parameter's. The bearer scheme is declared
 * here (see below).
 */
export const openApiDocument = (api: HttpApi.HttpApi.Any) => {
  const spec = OpenApi.fromApi(api as HttpApi.HttpApi.AnyWithProps) as unknown as {
    paths: Record<
      string,
      Record<string, {
        responses: Record<string, { content?: Record<string, { schema: unknown }> }>
        security?: Array<unknown>
        parameters?: Array<{ in: string; schema?: { examples?: Array<unknown> }; example?: unknown }>
      }>
    >
    components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> }
    security: Array<Record<string, Array<string>>>
  }
  const decodeError = "#/components/schemas/HttpApiDecodeError"
  for (const operations of Object.values(spec.paths)) {
    for (const operation of Object.values(operations)) {
      // The platform writes `security: []` on every operation without a middleware of its own,
      // which in OpenAPI means "no authentication" and overrides the API's bearer requirement.
      if (operation.security?.length === 0) delete operation.security
      // Swagger UI fills a path parameter's input from the parameter's `example`, not from its
      // schema's `examples` (the id type's, HttpApis.ts): with it, the path's id is the body's.
      for (const parameter of operation.parameters ?? []) {
        const example = parameter.schema?.examples?.[0]
        if (parameter.in === "path" && example !== undefined) parameter.example = example
      }
      const json = operation.responses["400"]?.content?.["application/json"]
      const schema = json?.schema as { anyOf?: Array<{ $ref?: string }> } | undefined
      if (json !== undefined && schema?.anyOf !== undefined) {
        const kept = schema.anyOf.filter((member) => member.$ref !== decodeError)
        json.schema = kept.length === 1 ? kept[0] : { anyOf: kept }
      }
    }
  }
  // The bearer token is checked for every style by the port's pipeline, before any body is read
  // (http/BearerAuth.ts), not by a middleware of the HttpApi (which would check it a second time
  // on every REST call): the document states the requirement itself.
  spec.components.securitySchemes = securitySchemes
  spec.security = [{ bearer: [] }]
  delete spec.components.schemas["HttpApiDecodeError"]
  delete spec.components.schemas["Issue"]
  delete spec.components.schemas["PropertyKey"]
  return spec
}

/**
 * What the platform's handlers may use (`HttpRouter.DefaultServices`: its file system, ETags and
 * paths; none of ours does): `NodeHttpServer.layerContext` without the command executor, terminal
 * and worker manager it adds, which nothing in a request asks for and every call would copy with
 * its context (`callContext` in PortApp.ts says why that costs).
 */
export const platformServices = Layer.mergeAll(NodeHttpPlatform.layer, Etag.layerWeak, NodeFileSystem.layer, NodePath.layer)

/**
 * A defect that reaches the platform's handler (one outside an operation, which `restCall` and
 * /rpc's `hideDefects` log and answer themselves) is logged once with its cause and answered as
 * Internal with a fixed text: the platform alone writes an empty 500 and logs nothing, as no
 * logger middleware is installed (the pipeline writes the access line).
 */
const answeringDefects = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
  app.pipe(
    Effect.tapDefect((cause) => logCallError("HTTP call failed", cause)),
    Effect.catchAllDefect(() => Effect.succeed(errorReply("Internal", "internal error")))
  )

/**
 * The part of a port that the platform serves: the REST API (an HttpApi), its OpenAPI document at
 * `GET /openapi.json`, and `POST /rpc`. Every call's log lines carry its request id.
 */
export const restApp = <E, R>(
  api: HttpApi.HttpApi.Any,
  rest: Layer.Layer<HttpApi.Api, E, R>,
  rpc: HttpApp.Default<never, Scope.Scope>
) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(
      Layer.mergeAll(rest, restRefusals(api)).pipe(
        Layer.provideMerge(HttpApiBuilder.Router.Live),
        Layer.provideMerge(HttpApiBuilder.Middleware.layer),
        Layer.provideMerge(platformServices)
      )
    )
    const app = yield* Effect.provide(HttpApiBuilder.httpApp, context)
    // Built once per port: the document does not change while the process runs. Private: with
    // API_TOKEN and SCHEMA_ACCESS=token it is behind the token, and `public` would let a shared
    // cache store the answer to a request with the token and hand it to callers without one (RFC
    // 9111 §3.5). (With SCHEMA_ACCESS=open, the default, it is open, as the pipeline decides.)
    const document = HttpServerResponse.unsafeJson(openApiDocument(api), {
      headers: { "cache-control": "private, max-age=300" }
    })
    // Each answer wrapped once, not on every call.
    const answers = {
      api: answeringDefects<never, Scope.Scope | HttpRouter.HttpRouter.DefaultServices>(app),
      rpc: answeringDefects(rpc),
      rpcOtherMethod: Effect.succeed(methodNotAllowed(["POST"])),
      document: Effect.succeed(document),
      documentOtherMethod: Effect.succeed(methodNotAllowed(["GET"]))
    }
    return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      const url = request.url
      // Only a path beginning with either is split from its query.
      const path = url.startsWith("/rpc") || url.startsWith("/openapi.json") ? url.split("?", 1)[0] : url
      const answer = path === "/rpc"
        ? request.method === "POST" ? answers.rpc : answers.rpcOtherMethod
        : path === "/openapi.json"
        ? request.method === "GET" || request.method === "HEAD" ? answers.document : answers.documentOtherMethod
        : answers.api
      return withinCall(callOf(NodeHttpServerRequest.toIncomingMessage(request)), requestIdIn(request.headers))(answer)
    })
  })
