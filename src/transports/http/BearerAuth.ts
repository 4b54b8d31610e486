import { Option, Redacted } from "effect"
import { createHash, timingSafeEqual } from "node:crypto"
import * as reflectionV1 from "../../gen/grpc/reflection/v1/reflection_pb.js"
import * as reflectionV1alpha from "../../gen/grpc/reflection/v1alpha/reflection_pb.js"
import { pathOf } from "./Calls.js"
import type { Request, Response } from "./RequestHandler.js"
import { type Refusal, refuse } from "./Refusal.js"
import { tokenlessRate, type TokenlessRates } from "../limits/TokenlessRate.js"

/** Whether an `Authorization` header value carries the configured bearer token. */
export type BearerCheck = (authorization: string | undefined) => boolean

export const unauthenticatedMessage = "missing or invalid bearer token"

const digest = (text: string) => createHash("sha256").update(text, "utf8").digest()

/**
 * `undefined` when no token is configured (authentication off). Both sides are hashed first, so
 * the comparison is constant-time whatever the length of what the caller sent.
 */
export const bearerCheck = (token: Option.Option<Redacted.Redacted>): BearerCheck | undefined =>
  Option.match(token, {
    onNone: () => undefined,
    onSome: (secret) => {
      const expected = digest(Redacted.value(secret))
      return (authorization) => {
        const presented = /^Bearer +(\S+) *$/i.exec(authorization ?? "")?.[1]
        return presented !== undefined && timingSafeEqual(digest(presented), expected)
      }
    }
  })

/**
 * SCHEMA_ACCESS: who may read the schema documents — `/openapi.json`, gRPC server reflection (v1
 * and v1alpha) and GraphQL introspection. `open` (the default): anyone, like the pages, which hold
 * no data either; `token`: only a caller with the token, like any call.
 */
export const schemaAccessValues = ["open", "token"] as const
export type SchemaAccess = (typeof schemaAccessValues)[number]

/** The paths of the schema documents the pipeline can tell by their path alone. */
const schemaPaths = new Set([
  "/openapi.json",
  `/${reflectionV1.ServerReflection.typeName}/${reflectionV1.ServerReflection.method.serverReflectionInfo.name}`,
  `/${reflectionV1alpha.ServerReflection.typeName}/${reflectionV1alpha.ServerReflection.method.serverReflectionInfo.name}`
])

/** GraphQL requests let through without the token, each with the refusal it gets unless it is introspection only. */
const deferred = new WeakMap<object, Refusal>()

/**
 * The refusal a GraphQL request let through without the token (SCHEMA_ACCESS=open) is to get
 * unless its document is introspection only (GraphqlHandler.ts); undefined for a request that
 * carries the token, or when none is configured.
 */
export const deferredRefusal = (request: object): Refusal | undefined => deferred.get(request)

/**
 * The pipeline's authentication step: false when the call carries the token (or none is
 * configured); otherwise it answers, in the caller's own protocol (Connect 401 JSON, gRPC and
 * gRPC-Web status 16, REST and `/rpc` 401 `{code, message, details}`, GraphQL 401 `errors[]`),
 * and returns true. It reads the headers alone, before any of the body: a caller without the
 * token must not be able to hold a request open by sending it slowly.
 *
 * With `schemaAccess` open, `/openapi.json` and reflection are let through without the token, and
 * so is a GraphQL request, marked with the refusal it is owed (`deferredRefusal`): only its
 * document says whether it is introspection, so the GraphQL handler answers it, reading a body
 * bounded as any other, and refuses it with that refusal unless it is. Those calls are bounded at
 * once (tokenlessInFlight, past which they get the 401) and in rate (`rates`, per port and per peer
 * address): past that they get `resource_exhausted`, HTTP 429 with Retry-After (gRPC 8), from the
 * headers alone. Calls with the token count in neither.
 */
export const bearerAuth = (token: Option.Option<Redacted.Redacted>, schemaAccess: SchemaAccess, rates: TokenlessRates) => {
  const authorized = bearerCheck(token)
  const admit = tokenlessRate(rates)
  const overRate = (seconds: number): Refusal => ({
    kind: "ResourceExhausted",
    status: 429,
    message: `too many calls without the token on this port (SCHEMA_ACCESS_RATE ${rates.perSecond} a second, ` +
      `SCHEMA_ACCESS_RATE_PER_ADDRESS ${rates.perAddressPerSecond} from one address); try again later, or send the token`,
    headers: { "retry-after": String(seconds) }
  })
  let tokenless = 0
  return (request: Request, response: Response): boolean => {
    if (authorized === undefined || authorized(request.headers["authorization"])) return false
    const refusal: Refusal = {
      kind: "Unauthenticated",
      message: unauthenticatedMessage,
      headers: { "www-authenticate": "Bearer" }
    }
    if (schemaAccess === "open") {
      const path = pathOf(request)
      const schema = schemaPaths.has(path)
      if ((schema || path === "/graphql") && tokenless < tokenlessInFlight) {
        const wait = admit(request.socket.remoteAddress ?? "")
        if (wait !== undefined) {
          refuse(request, response, overRate(wait))
          return true
        }
        // A place for calls without the token, given back when the answer is over.
        tokenless += 1
        response.once("close", () => tokenless -= 1)
        if (!schema) deferred.set(request, refusal)
        return false
      }
    }
    refuse(request, response, refusal)
    return true
  }
}

/**
 * How many calls without the token one port lets through at once (SCHEMA_ACCESS=open); beyond
 * that they get the 401 any call without the token gets. A reflection stream waits for its
 * client's requests until the request timeout, and a GraphQL body is read for up to 2 s: without
 * a cap of their own, callers without the token could hold every place of MAX_REQUESTS_IN_FLIGHT
 * and starve the callers with it. A person's GraphiQL or `buf curl` needs one or two at a time.
 */
export const tokenlessInFlight = 16
