import { Option, Redacted } from "effect"
import { createHash, timingSafeEqual } from "node:crypto"

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
