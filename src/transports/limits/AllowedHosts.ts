import type { Request } from "../http/RequestHandler.js"
import type { Refusal } from "../http/Refusal.js"

/**
 * The host names a port answers to (ALLOWED_HOSTS and its defaults, src/main/AllowedHostNames.ts).
 *
 * Why: a page on `http://attacker.test` can have its own name re-resolved to 127.0.0.1 (DNS
 * rebinding); the browser then sends it our answers as same-origin, `Host: attacker.test` and
 * all. The browser always names the host it thinks it talks to, so a port that answers only to
 * its own names is out of that page's reach.
 */
export interface AllowedHosts {
  /** ALLOWED_HOSTS=*: any host name (behind a load balancer that checks it, say). */
  readonly any: boolean
  /** Normalised as `hostOf` normalises (lowercase, IPv6 in brackets, no trailing dot). */
  readonly names: ReadonlyArray<string>
}

/** A host (a name, an IPv4 address, or an IPv6 address in brackets) and an optional port. */
const authorityForm = /^(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(?::\d{0,5})?$/i

/**
 * The host an authority names (`Host`, HTTP/2's `:authority`, or a setting), normalised as a
 * browser's URL parser does it (`LOCALHOST` and `localhost.` are `localhost`, `[0:0::1]` is
 * `[::1]`, `127.1` is `127.0.0.1`), without its port; undefined when it is not a host at all
 * (`evil.example; script-src *`, userinfo, a path, percent-escapes).
 */
export const hostOf = (authority: string): string | undefined => {
  const host = authorityForm.exec(authority)?.[1]
  if (host === undefined) return undefined
  let name: string
  try {
    name = new URL(`http://${host}/`).hostname
  } catch {
    return undefined
  }
  const bare = name.endsWith(".") ? name.slice(0, -1) : name
  return bare === "" ? undefined : bare
}

/** The scheme, authority and rest of an absolute-form request target (`http://host:port/path?query`). */
const absoluteForm = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)([^#]*)/i

/** The authority of each request that came with an absolute-form target, taken off by `toOriginForm`. */
const targetAuthorities = new WeakMap<Request, string>()

/**
 * An HTTP/1.1 request whose target is in absolute form (`GET http://evil.example/orgs`, as sent
 * to a proxy) is sent to the target's authority, whatever its `Host` says (RFC 9112 §3.2.2): the
 * authority is kept for the host rule, and the target becomes the origin form (`/orgs`) that
 * every style's router reads, so that each style answers it as it answers the origin form.
 */
export const toOriginForm = (request: Request): void => {
  const url = request.url
  if (request.httpVersionMajor !== 1 || url === undefined || url.startsWith("/")) return
  const target = absoluteForm.exec(url)
  if (target === null) return
  targetAuthorities.set(request, target[1]!)
  request.url = target[2]!.startsWith("/") ? target[2]! : `/${target[2]!}`
}

/** The Host values a request carries: an absolute-form target's authority alone, else `Host` (HTTP/1.1), `:authority` and any `host` (HTTP/2). */
const authoritiesOf = (request: Request): Array<string> => {
  const target = targetAuthorities.get(request)
  if (target !== undefined) return [target]
  const values: Array<string> = []
  for (const value of [request.headers[":authority"], request.headers.host]) {
    if (typeof value === "string") values.push(value)
    else if (Array.isArray(value)) values.push(...value)
  }
  return values
}

/** The host name the request was sent to, when it names a valid one (it has passed `hostCheck`). */
export const requestHost = (request: Request): string | undefined => {
  const first = authoritiesOf(request)[0]
  return first === undefined ? undefined : hostOf(first)
}

/** Counted apart: repeating one Host with another (`Host: 127.0.0.1` then `Host: evil`) is refused. */
const hostFieldCount = (request: Request): number => {
  let count = 0
  const raw = request.rawHeaders
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === "host") count++
  return count
}

const notAHost: Refusal = { kind: "InvalidArgument", message: "the Host header does not name a host" }

/**
 * The pipeline's host rule: undefined when the request may go on, else how it is refused
 * (`Refusal.ts` writes it in the caller's protocol): a Host (or `:authority`) that is not a host,
 * or two Host fields (RFC 9112 §3.2), is `invalid_argument` (400); one this port does not answer
 * to is `MisdirectedRequest` (421, with `invalid_argument` where the protocol has codes: Connect,
 * gRPC, gRPC-Web). The port in it is not compared: proxies and port mappings rewrite it. A
 * request naming no host at all (HTTP/1.0) cannot come from a browser, so it is not this rule's
 * business (Connect refuses it on its own terms).
 */
export const hostCheck = (allowed: AllowedHosts) => {
  const names = new Set(allowed.names)
  // Nearly every request names one of a few hosts: those seen allowed are not parsed again.
  const seen = new Set<string>()
  return (request: Request): Refusal | undefined => {
    if (allowed.any) return undefined
    const authorities = authoritiesOf(request)
    if (request.httpVersionMajor === 1 && hostFieldCount(request) > 1) return notAHost
    for (const authority of authorities) {
      if (seen.has(authority)) continue
      const host = hostOf(authority)
      if (host === undefined) return notAHost
      if (!names.has(host)) {
        return {
          kind: "MisdirectedRequest",
          message: `this server does not answer to the host name ${host} (ALLOWED_HOSTS)`
        }
      }
      if (seen.size < 64) seen.add(authority)
    }
    return undefined
  }
}
