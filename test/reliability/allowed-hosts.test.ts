import { codeToString } from "@connectrpc/connect/protocol-connect"
import { describe, expect, it, layer } from "@effect/vitest"
import * as grpc from "@grpc/grpc-js"
import { Effect, Option, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import * as http from "node:http"
import * as http2 from "node:http2"
import { CreateOrgRequestSchema, GetOrgRequestSchema } from "../../src/gen/org/v1beta1/org_pb.js"
import { allowedHostNames, type Machine } from "../../src/main/AllowedHostNames.js"
import { defaultSettings } from "../../src/main/Settings.js"
import { errorBody, errorTable } from "../../src/transports/ErrorTable.js"
import { hostCheck, hostOf } from "../../src/transports/limits/AllowedHosts.js"
import type { Request } from "../../src/transports/http/RequestHandler.js"
import { Services } from "../support/Services.js"
import type { ServiceUrls } from "../e2e/support/StyleClient.js"
import { recordFigures } from "../support/Figures.js"
import { inProcessServers } from "../support/InProcessServers.js"
import { rowCounts } from "../support/rows.js"
import { envelope, grpcRaw, protoBytes, rawHttp, rpcRequest } from "./support/wire.js"

/**
 * DNS rebinding: a page on `http://attacker.test:8081` has its name re-resolved to 127.0.0.1, and
 * the browser then lets it read our answers as its own, sending `Host: attacker.test:8081`. Every
 * port answers only to the host names it is given (ALLOWED_HOSTS, by default the bound address
 * and `localhost`), in every style, over HTTP/1.1 (`Host`) and HTTP/2 (`:authority`); CORS and
 * the console's Content-Security-Policy come from the settings, never from the request's Host.
 */

const attacker = "attacker.test"
const misdirected = errorTable.MisdirectedRequest

interface Reply {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly json: any
}

const parse = (text: string) => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** An HTTP/1.1 request with the Host (and other headers) we choose: fetch does not let a caller set Host. */
const h1 = (baseUrl: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: string | Uint8Array } = {}) =>
  new Promise<Reply>((resolve, reject) => {
    const url = new URL(baseUrl)
    const request = http.request(
      { host: url.hostname, port: url.port, path, method: init.method ?? "GET", headers: init.headers, agent: false },
      (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () =>
          resolve({ status: response.statusCode!, headers: response.headers, json: parse(Buffer.concat(chunks).toString("utf8")) })
        )
      }
    )
    request.on("error", reject)
    request.end(init.body)
  })

/** An HTTP/2 request (prior knowledge) with the `:authority` we choose. */
const h2 = (baseUrl: string, path: string, headers: http2.OutgoingHttpHeaders, body?: string | Uint8Array) =>
  new Promise<Reply & { readonly grpcStatus: string | undefined }>((resolve, reject) => {
    const session = http2.connect(baseUrl)
    session.on("error", reject)
    const stream = session.request({ ":path": path, ":method": body === undefined ? "GET" : "POST", ...headers })
    let response: http2.IncomingHttpHeaders & http2.IncomingHttpStatusHeader = {}
    const chunks: Array<Buffer> = []
    stream.on("response", (fields) => (response = fields))
    stream.on("data", (chunk: Buffer) => chunks.push(chunk))
    stream.on("error", reject)
    stream.on("end", () => {
      session.close()
      const grpcStatus = response["grpc-status"]
      resolve({
        status: Number(response[":status"]),
        headers: response as http.IncomingHttpHeaders,
        json: parse(Buffer.concat(chunks).toString("utf8")),
        grpcStatus: grpcStatus === undefined ? undefined : String(grpcStatus)
      })
    })
    stream.end(body === undefined ? undefined : Buffer.from(body))
  })

/** @grpc/grpc-js with its channel's authority set, as a client given another target name sends it. */
const grpcJsWithAuthority = (baseUrl: string, authority: string, id: string) =>
  new Promise<number>((resolve) => {
    const client = new grpc.Client(new URL(baseUrl).host, grpc.credentials.createInsecure(), { "grpc.default_authority": authority })
    client.makeUnaryRequest(
      "/org.v1beta1.OrgService/GetOrg",
      () => Buffer.from(protoBytes(GetOrgRequestSchema, { id })),
      (bytes: Buffer) => bytes,
      {},
      new grpc.Metadata(),
      { deadline: Date.now() + 10_000 },
      (error) => {
        client.close()
        resolve(error === null ? 0 : (error as grpc.ServiceError).code)
      }
    )
  })

const json = { "content-type": "application/json" }

/** A create of an org in each style, over HTTP/1.1, naming `host`. */
const createsOverH1 = (url: string, host: string) => {
  const headers = { ...json, host }
  const org = () => ({ id: randomUUID(), name: "Rebound" })
  return {
    rest: () => h1(url, `/orgs/${randomUUID()}`, { method: "PUT", headers, body: JSON.stringify({ name: "Rebound" }) }),
    connect: () => h1(url, "/org.v1beta1.OrgService/CreateOrg", { method: "POST", headers, body: JSON.stringify(org()) }),
    graphql: () =>
      h1(url, "/graphql", {
        method: "POST",
        headers,
        body: JSON.stringify({ query: "mutation($i: CreateOrgInput!) { createOrg(input: $i) { org { id } } }", variables: { i: org() } })
      }),
    rpc: () => h1(url, "/rpc", { method: "POST", headers, body: rpcRequest("CreateOrg", org()) }),
    grpcWeb: () =>
      h1(url, "/org.v1beta1.OrgService/CreateOrg", {
        method: "POST",
        headers: { host, "content-type": "application/grpc-web+proto", "x-grpc-web": "1" },
        body: envelope(protoBytes(CreateOrgRequestSchema, org()))
      })
  }
}

describe("host names, read as a browser's URL parser reads them", () => {
  it("normalises case, a trailing dot, IPv6 and IPv4 spellings, and drops the port", () => {
    expect(hostOf("LocalHost:9090")).toBe("localhost")
    expect(hostOf("localhost.")).toBe("localhost")
    expect(hostOf("[0:0:0:0:0:0:0:1]:80")).toBe("[::1]")
    expect(hostOf("127.1")).toBe("127.0.0.1")
    expect(hostOf("Api.Example.COM")).toBe("api.example.com")
  })
  it("refuses what is not a host", () => {
    for (const value of ["evil.example; script-src *", "user@127.0.0.1", "127.0.0.1/x", "%6cocalhost", "", ".", "1.2.3.4.5", "[::1", "a b"]) {
      expect({ value, host: hostOf(value) }).toEqual({ value, host: undefined })
    }
  })
})

describe("the host rule's cost per request", () => {
  it("is recorded: a Host seen before, and one parsed each time", () => {
    const check = hostCheck({ any: false, names: ["127.0.0.1", "localhost"] })
    const request = (host: string) => ({ headers: { host }, rawHeaders: ["Host", host], httpVersionMajor: 1 }) as unknown as Request
    const rounds = 200_000
    const seen = Array.from({ length: rounds }, () => request("localhost:9090"))
    // Each authority new (the port differs), past the 64 the rule remembers: each one parsed.
    const parsed = Array.from({ length: rounds }, (_, i) => request(`127.0.0.1:${i % 65_536}`))
    const nanosPerRequest = (requests: ReadonlyArray<Request>) => {
      const started = performance.now()
      let refused = 0
      for (const each of requests) if (check(each) !== undefined) refused++
      expect(refused).toBe(0)
      return Math.round(((performance.now() - started) * 1e6) / requests.length)
    }
    recordFigures("allowed-hosts-cost", { rounds, seenNanos: nanosPerRequest(seen), parsedNanos: nanosPerRequest(parsed) })
  })
})

describe("the default host names", () => {
  const machine: Machine = { addresses: ["127.0.0.1", "10.1.2.3", "::1", "fe80::1"], hostname: "Web-1" }
  const names = (host: string, allowed = { any: false, names: [] as ReadonlyArray<string> }) =>
    allowedHostNames({ ...defaultSettings, host, allowedHosts: allowed }, machine)

  it("are the bound address and localhost, and what ALLOWED_HOSTS adds", () => {
    expect(names("127.0.0.1")).toEqual({ any: false, names: ["127.0.0.1", "localhost"] })
    expect(names("::1")).toEqual({ any: false, names: ["[::1]", "localhost"] })
    expect(names("localhost")).toEqual({ any: false, names: ["localhost", "127.0.0.1", "[::1]"] })
    expect(names("127.0.0.1", { any: false, names: ["api.example.com"] }).names).toEqual(["127.0.0.1", "localhost", "api.example.com"])
    expect(names("127.0.0.1", { any: true, names: [] }).any).toBe(true)
  })

  it("bound to every address: the machine's addresses and its host name, not any name", () => {
    for (const wildcard of ["0.0.0.0", "::"]) {
      expect(names(wildcard)).toEqual({ any: false, names: ["localhost", "127.0.0.1", "[::1]", "10.1.2.3", "[fe80::1]", "web-1"] })
    }
  })
})

describe("the host rule on every port", () => {
  layer(inProcessServers(), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("a Host the port does not answer to is refused in every style, over HTTP/1.1 and HTTP/2; nothing stored", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const before = yield* rowCounts
        for (const [port, url] of Object.entries(urls) as Array<[keyof ServiceUrls, string]>) {
          const where = { port }
          // The REST form of every port, at a path it has and at one it has not.
          for (const path of ["/openapi.json", "/nowhere", "/graphql?query=%7B__typename%7D", "/docs", "/"]) {
            const reply = yield* Effect.promise(() => h1(url, path, { headers: { host: `${attacker}:8081`, accept: "text/html" } }))
            const body = path.startsWith("/graphql")
              ? { errors: [{ message: expect.any(String), extensions: { code: misdirected.graphql } }] }
              : errorBody.rest("MisdirectedRequest", expect.any(String))
            expect({ ...where, path, status: reply.status, body: reply.json }).toEqual({ ...where, path, status: misdirected.http, body })
          }
          const over2 = yield* Effect.promise(() => h2(url, "/openapi.json", { ":authority": `${attacker}:8081` }))
          expect({ ...where, status: over2.status }).toEqual({ ...where, status: misdirected.http })
          const grpcRefused = yield* Effect.promise(() =>
            grpcRaw(url, "org.v1beta1.OrgService/GetOrg", envelope(protoBytes(GetOrgRequestSchema, { id: randomUUID() })), { ":authority": attacker })
          )
          expect({ ...where, grpc: grpcRefused.code, message: grpcRefused.message }).toEqual({
            ...where,
            grpc: misdirected.grpc,
            message: `this server does not answer to the host name ${attacker} (ALLOWED_HOSTS)`
          })
        }
        const creates = createsOverH1(urls.org, attacker)
        const refusedWith = (json: unknown) => ({ status: misdirected.http, json })
        expect(yield* Effect.promise(creates.rest)).toMatchObject(refusedWith(errorBody.rest("MisdirectedRequest", expect.any(String))))
        expect(yield* Effect.promise(creates.connect)).toMatchObject(refusedWith({ code: codeToString(misdirected.connect) }))
        expect(yield* Effect.promise(creates.graphql)).toMatchObject(refusedWith({ errors: [{ extensions: { code: misdirected.graphql } }] }))
        expect((yield* Effect.promise(creates.rpc))).toMatchObject({ status: misdirected.http, json: { code: misdirected.grpc } })
        const grpcWeb = yield* Effect.promise(creates.grpcWeb)
        expect({ status: grpcWeb.status, grpc: grpcWeb.headers["grpc-status"] }).toEqual({ status: 200, grpc: String(misdirected.grpc) })
        expect(yield* Effect.promise(() => grpcJsWithAuthority(urls.org, `${attacker}:9090`, randomUUID()))).toBe(misdirected.grpc)
        expect(yield* rowCounts).toEqual(before)
      }))

    it.effect("the names it answers to pass, in any case, with any port, with a trailing dot; gRPC clients' targets too", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        for (const host of ["127.0.0.1", "localhost", "LOCALHOST:1", "localhost.:9090", "127.0.0.1:65535"]) {
          const rest = yield* Effect.promise(() => createsOverH1(urls.org, host).rest())
          expect({ host, status: rest.status }).toEqual({ host, status: 200 })
          const rpc = yield* Effect.promise(() => createsOverH1(urls.org, host).rpc())
          expect({ host, status: rpc.status }).toEqual({ host, status: 200 })
        }
        for (const authority of ["127.0.0.1:9090", "localhost:9090"]) {
          // NOT_FOUND: the call went through to the operation.
          expect(yield* Effect.promise(() => grpcJsWithAuthority(urls.org, authority, randomUUID()))).toBe(errorTable.NotFound.grpc)
        }
      }))

    it.effect("an absolute-form target's authority is what the rule checks, not the Host beside it (RFC 9112 §3.2.2)", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const before = yield* rowCounts
        const { port } = new URL(urls.org)
        const request = (target: string, host: string, body = "") =>
          rawHttp(
            urls.org,
            `${body === "" ? "GET" : "POST"} ${target} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\n` +
              `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
          )
        const toAttacker = yield* Effect.promise(() => request(`http://${attacker}/openapi.json`, "127.0.0.1"))
        expect({ status: toAttacker.status, code: toAttacker.code }).toEqual({ status: misdirected.http, code: misdirected.grpc })
        const created = yield* Effect.promise(() => request(`http://${attacker}:${port}/orgs/${randomUUID()}`, "127.0.0.1", `{"name":"Acme"}`))
        expect(created.status).toBe(misdirected.http)
        const notAHostTarget = yield* Effect.promise(() => request(`http://127.0.0.1@${attacker}/openapi.json`, "127.0.0.1"))
        expect(notAHostTarget.status).toBe(400)
        const toUs = yield* Effect.promise(() => request(`http://127.0.0.1:${port}/openapi.json`, attacker))
        expect(toUs.status).toBe(200)
        expect(yield* rowCounts).toEqual(before)
        // Answered as its origin form is, in the style its path names.
        const id = randomUUID()
        const ours = yield* Effect.promise(() => request(`http://localhost:${port}/orgs/${id}`, attacker, `{"name":"Acme"}`))
        expect({ status: ours.status, body: ours.body }).toEqual({ status: 200, body: { org: { id, name: "Acme" } } })
      }))

    it.effect("a Host that is not a host, or two of them, is 400; the probes and gRPC health answer any Host", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const injected = yield* Effect.promise(() => h1(urls.workflow, "/", { headers: { host: "evil.example; script-src *", accept: "text/html" } }))
        expect({ status: injected.status, csp: injected.headers["content-security-policy"], body: injected.json }).toEqual({
          status: 400,
          csp: undefined,
          body: errorBody.rest("InvalidArgument", "the Host header does not name a host")
        })
        const twice = yield* Effect.promise(() =>
          rawHttp(urls.org, `GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: ${attacker}\r\nConnection: close\r\n\r\n`)
        )
        expect(twice.status).toBe(400)
        for (const path of ["/healthz", "/readyz"]) {
          expect((yield* Effect.promise(() => h1(urls.org, path, { headers: { host: attacker } }))).status).toBe(200)
        }
        const health = yield* Effect.promise(() => grpcRaw(urls.org, "grpc.health.v1.Health/Check", envelope(new Uint8Array()), { ":authority": attacker }))
        expect(health.code).toBe(0)
      }))
  })

  layer(inProcessServers({ allowedHosts: { any: false, names: ["api.example.com"] } }), { timeout: 60_000, excludeTestServices: true })(
    "with ALLOWED_HOSTS=api.example.com",
    (it) => {
      it.effect("that name is answered besides the defaults; others are not", () =>
        Effect.gen(function*() {
          const urls = yield* Services
          const answers: ReadonlyArray<readonly [string, number]> = [
            ["api.example.com:443", 200],
            ["API.EXAMPLE.COM", 200],
            ["127.0.0.1", 200],
            ["example.com", 421],
            ["x.api.example.com", 421]
          ]
          for (const [host, status] of answers) {
            const reply = yield* Effect.promise(() => h1(urls.org, "/openapi.json", { headers: { host } }))
            expect({ host, status: reply.status }).toEqual({ host, status })
          }
        }))
    }
  )
})

describe("CORS and the console's Content-Security-Policy come from the settings, not the Host", () => {
  // The workflow port at 8081 as far as the console's origins go (the listener's own port is ephemeral).
  const consolePort = 8081
  const any = { allowedHosts: { any: true, names: [] }, processPorts: { workflow: consolePort } }

  const preflight = (url: string, host: string, origin: string) =>
    h1(url, "/org.v1beta1.OrgService/CreateOrg", {
      method: "OPTIONS",
      headers: { host, origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type" }
    })

  layer(inProcessServers({ processPorts: { workflow: consolePort } }), { timeout: 60_000, excludeTestServices: true })("by default", (it) => {
    it.effect("the console's origins at the process's host names are allowed; an origin named after the Host is not", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        for (const origin of [`http://127.0.0.1:${consolePort}`, `http://localhost:${consolePort}`]) {
          const reply = yield* Effect.promise(() => preflight(urls.org, "127.0.0.1", origin))
          expect({ origin, status: reply.status, allowed: reply.headers["access-control-allow-origin"] }).toEqual({ origin, status: 204, allowed: origin })
        }
        const rebound = yield* Effect.promise(() => preflight(urls.org, `${attacker}:${consolePort}`, `http://${attacker}:${consolePort}`))
        expect(rebound.headers["access-control-allow-origin"]).toBeUndefined()
      }))
  })

  layer(inProcessServers(any), { timeout: 60_000, excludeTestServices: true })("with ALLOWED_HOSTS=*", (it) => {
    it.effect("any Host is answered, but CORS allows no origin named after it, on any port", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        for (const [port, url] of Object.entries(urls)) {
          const reply = yield* Effect.promise(() => preflight(url, `${attacker}:${consolePort}`, `http://${attacker}:${consolePort}`))
          expect({ port, allowed: reply.headers["access-control-allow-origin"] }).toEqual({ port, allowed: undefined })
          const call = yield* Effect.promise(() => h1(url, "/healthz", { headers: { host: attacker, origin: `http://${attacker}:${consolePort}` } }))
          expect({ port, allowed: call.headers["access-control-allow-origin"] }).toEqual({ port, allowed: undefined })
        }
      }))

    it.effect("the console's policy is the same whatever the Host says", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const policyFor = (host: string) =>
          Effect.promise(() => h1(urls.workflow, "/", { headers: { host, accept: "text/html" } })).pipe(
            Effect.map((reply) => ({ status: reply.status, policy: reply.headers["content-security-policy"] }))
          )
        const own = yield* policyFor("127.0.0.1")
        expect(own.status).toBe(200)
        for (const host of ["evil.example", "evil.example; script-src *", `${attacker}:${consolePort}`]) {
          expect({ host, ...(yield* policyFor(host)) }).toEqual({ host, ...own })
        }
        // Each service at each host name the process answers to (the default ports: this process serves them elsewhere).
        expect(own.policy).toContain(
          "connect-src 'self' http://127.0.0.1:9090 http://localhost:9090 http://127.0.0.1:9091 http://localhost:9091 " +
            "http://127.0.0.1:9092 http://localhost:9092;"
        )
      }))
  })
})

describe("/openapi.json behind the token", () => {
  layer(inProcessServers({ apiToken: Option.some(Redacted.make("openapi-token")) }), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("is not public to caches: a shared cache must not hand it to callers without the token", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const reply = yield* Effect.promise(() => fetch(`${urls.org}/openapi.json`, { headers: { authorization: "Bearer openapi-token" } }))
        expect(reply.status).toBe(200)
        const caching = reply.headers.get("cache-control") ?? ""
        expect(caching).not.toMatch(/\bpublic\b/)
        expect(caching).toMatch(/\bprivate\b/)
      }))
  })
})
