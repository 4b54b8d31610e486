import { Option, Redacted } from "effect"
import { createHash, timingSafeEqual } from "node:crypto"
import type { Request, Response } from "./PortListener.js"
import { refuse } from "./Refusal.js"

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
 * The pipeline's authentication step: false when the call carries the token (or none is
 * configured); otherwise it answers, in the caller's own protocol (Connect 401 JSON, gRPC and
 * gRPC-Web status 16, REST and `/rpc` 401 `{code, message, details}`, GraphQL 401 `errors[]`),
 * and returns true. It reads the headers alone, before any of the body: a caller without the
 * token must not be able to hold a request open by sending it slowly.
 */
export const bearerAuth = (token: Option.Option<Redacted.Redacted>) => {
  const authorized = bearerCheck(token)
  return (request: Request, response: Response): boolean => {
    if (authorized === undefined || authorized(request.headers["authorization"])) return false
    refuse(request, response, {
      kind: "Unauthenticated",
      message: unauthenticatedMessage,
      headers: { "www-authenticate": "Bearer" }
    })
    return true
  }
}
