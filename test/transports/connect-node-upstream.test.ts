import { create } from "@bufbuild/protobuf"
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect"
import { connectNodeAdapter as upstreamAdapter } from "@connectrpc/connect-node"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as http from "node:http"
import * as http2 from "node:http2"
import type { AddressInfo } from "node:net"
import { setTimeout as sleep } from "node:timers/promises"
import { CreateLicenseResponseSchema, LicenseService } from "../../src/gen/license/v1beta1/license_pb.js"
import { CreateOrgResponseSchema, GetOrgResponseSchema, OrgService } from "../../src/gen/org/v1beta1/org_pb.js"
import { connectNodeAdapter as ourAdapter } from "../../src/transports/connect/ConnectNodeAdapter.js"
import type { RequestHandler } from "../../src/transports/http/RequestHandler.js"
import { envelope, rawHttp } from "../reliability/support/wire.js"

/**
 * The connect-node behaviours that src/transports/connect/corrections/ corrects (one module each), each
 * shown on connect-node's own adapter ("upstream") and on ours, with the same routes. If an
 * upgrade fixes or changes one, its upstream expectation here fails: then the correction must go
 * (or change), not be applied twice. Checked against 2.1.1 and 2.2.0 (2.2.0 changes none of them;
 * ignoredUnknownFields and wrongJsonTypes, added later, against 2.1.1 only).
 */

const routes = (router: ConnectRouter) => {
  router.service(OrgService, {
    getOrg: async (request, context) => {
      // A refusal whose message holds characters encodeURIComponent escapes and the gRPC spec does not.
      if (request.id === "refuse") throw new ConnectError("id: must be a UUID", Code.InvalidArgument)
      // Long enough for a deadline that fired at once to be seen.
      if (request.id === "slow") await sleep(100)
      if (context.signal.aborted) throw ConnectError.from(context.signal.reason)
      return create(GetOrgResponseSchema, { org: { id: request.id, name: "Acme" } })
    },
    createOrg: (request) => create(CreateOrgResponseSchema, { org: { id: request.id, name: request.name } })
  })
  router.service(LicenseService, {
    createLicense: (request) =>
      create(CreateLicenseResponseSchema, { license: { id: request.id, start: request.start, end: request.end } })
  })
}

const adapters: Record<"upstream" | "ours", RequestHandler> = {
  upstream: upstreamAdapter({ routes }) as RequestHandler,
  ours: ourAdapter({
    routes,
    protobufMaxFields: 1_000,
    logFailure: (_request, message, error) => console.error(message, error),
    fallback: (_request, response) => {
      response.writeHead(404)
      response.end()
    }
  })
}

type Side = keyof typeof adapters
const h1: Record<Side, string> = { upstream: "", ours: "" }
const h2: Record<Side, string> = { upstream: "", ours: "" }
const servers: Array<http.Server | http2.Http2Server> = []
let thrown: Array<unknown> = []

const listen = async (server: http.Server | http2.Http2Server) => {
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

beforeAll(async () => {
  for (const side of ["upstream", "ours"] as const) {
    const adapter = adapters[side]
    h1[side] = await listen(http.createServer((request, response) => {
      try {
        adapter(request, response)
      } catch (error) {
        // Left to itself, this throw leaves the "request" listener: an uncaught exception that ends the process.
        thrown.push(error)
        response.destroy()
      }
    }))
    h2[side] = await listen(http2.createServer(adapter))
  }
})

afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))))
})

const grpcCall = (base: string, path: string, body: Uint8Array, contentType = "application/grpc") =>
  new Promise<Record<string, unknown>>((resolve, reject) => {
    const session = http2.connect(base)
    session.on("error", reject)
    const stream = session.request({ ":method": "POST", ":path": path, "content-type": contentType, te: "trailers" })
    let fields: Record<string, unknown> = {}
    stream.on("response", (headers) => (fields = { ...headers }))
    stream.on("trailers", (trailers) => (fields = { ...fields, ...trailers }))
    stream.on("close", () => {
      session.close()
      resolve(fields)
    })
    stream.on("error", reject)
    stream.resume()
    stream.end(body)
  })

const connectJson = async (base: string, path: string, body: string | Uint8Array, headers: Record<string, string> = {}) => {
  const reply = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body
  })
  const text = await reply.text()
  return { status: reply.status, text, json: text === "" ? undefined : JSON.parse(text), allow: reply.headers.get("allow") }
}

const getOrg = "/org.v1beta1.OrgService/GetOrg"
const createOrg = "/org.v1beta1.OrgService/CreateOrg"
const createLicense = "/license.v1beta1.LicenseService/CreateLicense"

describe("hostlessRequestThrows", () => {
  const hostless = `POST ${getOrg} HTTP/1.0\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}`

  it("upstream: throws synchronously, out of the request listener, for an HTTP/1.0 request without Host", async () => {
    thrown = []
    await rawHttp(h1.upstream, hostless, 1_000)
    expect(thrown.length).toBe(1)
  })

  it("ours: refused as invalid_argument, nothing thrown", async () => {
    thrown = []
    const answer = await rawHttp(h1.ours, hostless, 1_000)
    expect(thrown).toEqual([])
    expect({ status: answer.status, code: answer.code }).toEqual({ status: 400, code: "invalid_argument" })
  })
})

describe("timerOverflowDeadlines", () => {
  // 2^31 ms: one more than a Node timer holds.
  const farDeadline = { "connect-timeout-ms": "2147483648" }

  it("upstream: a deadline beyond 2^31-1 ms expires as the call begins", async () => {
    const answer = await connectJson(h1.upstream, getOrg, JSON.stringify({ id: "slow" }), farDeadline)
    expect(answer.json).toMatchObject({ code: "deadline_exceeded" })
  })

  it("ours: the call runs as if no deadline were set", async () => {
    const answer = await connectJson(h1.ours, getOrg, JSON.stringify({ id: "slow" }), farDeadline)
    expect(answer).toMatchObject({ status: 200, json: { org: { id: "slow" } } })
  })
})

describe("lenientUtf8", () => {
  // "Acme" with a byte that is not UTF-8 in it.
  const body = Buffer.concat([Buffer.from(`{"id":"x","name":"Ac`), Buffer.from([0xff]), Buffer.from(`me"}`)])

  it("upstream: bytes that are not UTF-8 in a JSON message arrive as U+FFFD", async () => {
    const post = await connectJson(h1.upstream, createOrg, body)
    expect(post.json).toEqual({ org: { id: "x", name: "Ac\uFFFDme" } })
    const get = await fetch(`${h1.upstream}${getOrg}?encoding=json&message=${"%7B%22id%22%3A%22a%FFb%22%7D"}`)
    expect(await get.json()).toEqual({ org: { id: "a\uFFFDb", name: "Acme" } })
  })

  it("ours: refused as invalid_argument, on POST and GET", async () => {
    const post = await connectJson(h1.ours, createOrg, body)
    expect(post).toMatchObject({ status: 400, json: { code: "invalid_argument", message: "the request message is not valid UTF-8" } })
    const get = await fetch(`${h1.ours}${getOrg}?encoding=json&message=${"%7B%22id%22%3A%22a%FFb%22%7D"}`)
    expect(await get.json()).toEqual({ code: "invalid_argument", message: "message: the request message is not valid UTF-8" })
  })
})

describe("rolledOverTimestamps", () => {
  const license = (start: string) => JSON.stringify({ id: "l", start, end: "2024-01-01T00:00:00Z" })

  it("upstream: an impossible date rolls over (February 30 arrives as March 2)", async () => {
    const answer = await connectJson(h1.upstream, createLicense, license("2023-02-30T00:00:00Z"))
    expect(answer.json).toMatchObject({ license: { start: "2023-03-02T00:00:00Z" } })
  })

  it("ours: refused, naming the field; a real date passes", async () => {
    const refused = await connectJson(h1.ours, createLicense, license("2023-02-30T00:00:00Z"))
    expect(refused).toMatchObject({ status: 400, json: { code: "invalid_argument", message: expect.stringMatching(/^start: /) } })
    const accepted = await connectJson(h1.ours, createLicense, license("2023-02-28T00:00:00Z"))
    expect(accepted.json).toMatchObject({ license: { start: "2023-02-28T00:00:00Z" } })
  })
})

describe("undecodableAsInternal", () => {
  const garbage = Uint8Array.from([0x0a, 0x05, 0x61])
  const binary = (base: string) =>
    fetch(`${base}${getOrg}`, { method: "POST", headers: { "content-type": "application/proto" }, body: garbage })

  it("upstream: a binary message it cannot decode is internal, not invalid_argument", async () => {
    const reply = await binary(h1.upstream)
    expect(reply.status).toBe(500)
    expect(await reply.json()).toMatchObject({ code: "internal", message: expect.stringMatching(/^parse binary: /) })
    expect((await grpcCall(h2.upstream, getOrg, envelope(garbage)))["grpc-status"]).toBe("13")
  })

  it("ours: invalid_argument in Connect, gRPC and gRPC-Web, the message kept", async () => {
    const reply = await binary(h1.ours)
    expect(reply.status).toBe(400)
    expect(await reply.json()).toMatchObject({ code: "invalid_argument", message: expect.stringMatching(/^parse binary: /) })
    expect((await grpcCall(h2.ours, getOrg, envelope(garbage)))["grpc-status"]).toBe("3")
    const web = await fetch(`${h1.ours}${getOrg}`, {
      method: "POST",
      headers: { "content-type": "application/grpc-web+proto" },
      body: envelope(garbage)
    })
    expect(Buffer.from(await web.arrayBuffer()).toString("latin1")).toMatch(/grpc-status: 3\r\n/)
  })
})

describe("overEscapedGrpcMessage", () => {
  const refuse = envelope(Uint8Array.from([0x0a, 6, ...new TextEncoder().encode("refuse")]))

  it("upstream: grpc-message is percent-encoded beyond what the gRPC spec asks", async () => {
    const grpc = await grpcCall(h2.upstream, getOrg, refuse)
    expect(grpc["grpc-status"]).toBe("3")
    expect(grpc["grpc-message"]).toBe("id%3A%20must%20be%20a%20UUID")
  })

  it("ours: printable ASCII but % stays as it is", async () => {
    const grpc = await grpcCall(h2.ours, getOrg, refuse)
    expect(grpc["grpc-message"]).toBe("id: must be a UUID")
  })
})

describe("bodilessRefusals", () => {
  it("upstream: 415 and 405 come with an empty body", async () => {
    expect(await connectJson(h1.upstream, getOrg, "{}", { "content-type": "text/plain" })).toMatchObject({ status: 415, text: "" })
    const put = await fetch(`${h1.upstream}${createOrg}`, { method: "PUT", body: "{}" })
    expect({ status: put.status, text: await put.text() }).toEqual({ status: 405, text: "" })
  })

  it("ours: the same statuses with a Connect error body that says what to send, and Allow", async () => {
    const text = await connectJson(h1.ours, getOrg, "{}", { "content-type": "text/plain" })
    expect(text).toMatchObject({ status: 415, json: { code: "invalid_argument", message: expect.stringContaining("send application/json") } })
    const reply = await fetch(`${h1.ours}${getOrg}`, { method: "PUT", body: "{}" })
    expect({ status: reply.status, allow: reply.headers.get("allow"), body: await reply.json() }).toEqual({
      status: 405,
      allow: "POST, GET",
      body: { code: "unimplemented", message: "method not allowed; use POST, GET" }
    })
  })
})

describe("unboundedBinaryFields", () => {
  // CreateOrg {id: "x"} and 2,000 fields of a number it does not have (15, varint 1).
  const manyFields = Buffer.concat([Uint8Array.from([0x0a, 0x01, 0x78]), Buffer.from("7801".repeat(2_000), "hex")])
  const connect = (base: string) =>
    fetch(`${base}${createOrg}`, { method: "POST", headers: { "content-type": "application/proto" }, body: manyFields })

  it("upstream: a message of any number of fields is decoded, each unknown one kept", async () => {
    expect((await connect(h1.upstream)).status).toBe(200)
    expect((await grpcCall(h2.upstream, createOrg, envelope(manyFields)))["grpc-status"]).toBe("0")
  })

  it("ours: over PROTOBUF_MAX_FIELDS, resource_exhausted before it is decoded, in Connect and gRPC", async () => {
    const reply = await connect(h1.ours)
    expect({ status: reply.status, body: await reply.json() }).toEqual({
      status: 429,
      body: {
        code: "resource_exhausted",
        message: "the request message holds more than 1000 fields (its nested messages' included); at most 1000 are allowed"
      }
    })
    expect((await grpcCall(h2.ours, createOrg, envelope(manyFields)))["grpc-status"]).toBe("8")
  })
})

describe("readMaxBytesInMessage", () => {
  const readMaxBytes = 64
  const bounded: Record<Side, string> = { upstream: "", ours: "" }
  const boundedH2: Record<Side, string> = { upstream: "", ours: "" }
  beforeAll(async () => {
    const sides: Record<Side, RequestHandler> = {
      upstream: upstreamAdapter({ routes, readMaxBytes }) as RequestHandler,
      ours: ourAdapter({ routes, readMaxBytes, protobufMaxFields: 1_000, logFailure: () => {}, fallback: (_request, response) => response.end() })
    }
    for (const side of ["upstream", "ours"] as const) {
      bounded[side] = await listen(http.createServer(sides[side]))
      boundedH2[side] = await listen(http2.createServer(sides[side]))
    }
  })
  const big = JSON.stringify({ id: "x", name: "a".repeat(2 * readMaxBytes) })
  const bigBinary = Uint8Array.from([0x0a, 0x01, 0x78, 0x12, 2 * readMaxBytes, ...new Uint8Array(2 * readMaxBytes).fill(0x61)])

  it("upstream: a message over readMaxBytes is resource_exhausted naming connect-es's own option", async () => {
    expect(await connectJson(bounded.upstream, createOrg, big)).toMatchObject({
      status: 429,
      json: { code: "resource_exhausted", message: expect.stringMatching(/is larger than configured readMaxBytes 64$/) }
    })
    const grpc = await grpcCall(boundedH2.upstream, createOrg, envelope(bigBinary))
    expect(grpc["grpc-status"]).toBe("8")
    expect(decodeURIComponent(String(grpc["grpc-message"]))).toMatch(/readMaxBytes 64$/)
  })

  it("ours: the same code and status, the message naming MAX_BODY_BYTES, in Connect, gRPC and gRPC-Web", async () => {
    const message = "request message is larger than MAX_BODY_BYTES (64 bytes)"
    expect(await connectJson(bounded.ours, createOrg, big)).toMatchObject({ status: 429, json: { code: "resource_exhausted", message } })
    const grpc = await grpcCall(boundedH2.ours, createOrg, envelope(bigBinary))
    expect({ status: grpc["grpc-status"], message: grpc["grpc-message"] }).toEqual({ status: "8", message })
    const web = await fetch(`${bounded.ours}${createOrg}`, {
      method: "POST",
      headers: { "content-type": "application/grpc-web+proto" },
      body: envelope(bigBinary)
    })
    const trailer = Buffer.from(await web.arrayBuffer()).toString("latin1")
    expect(trailer).toMatch(/grpc-status: 8\r\n/)
    expect(trailer).toContain(`grpc-message: ${encodeURIComponent(message)}\r\n`)
  })
})

describe("ignoredUnknownFields", () => {
  const misspelt = JSON.stringify({ id: "x", name: "Acme", nmae: "Typo" })

  it("upstream: a JSON field the message does not have is dropped, and the call succeeds", async () => {
    const answer = await connectJson(h1.upstream, createOrg, misspelt)
    expect(answer).toMatchObject({ status: 200, json: { org: { id: "x", name: "Acme" } } })
  })

  it("ours: refused as invalid_argument naming the field's path", async () => {
    const refused = await connectJson(h1.ours, createOrg, misspelt)
    expect(refused).toMatchObject({ status: 400, json: { code: "invalid_argument", message: "nmae: is not a known field" } })
  })
})

describe("wrongJsonTypes", () => {
  const numbered = JSON.stringify({ id: "x", name: 5 })

  it("upstream: refused in protobuf-es's words, naming the message's type, with no BadRequest", async () => {
    const answer = await connectJson(h1.upstream, createOrg, numbered)
    expect(answer).toMatchObject({ status: 400, json: { code: "invalid_argument", message: expect.stringMatching(/CreateOrgRequest\.name from JSON: expected string, got 5/) } })
    expect(answer.json).not.toHaveProperty("details")
  })

  it("ours: refused naming the field's path and the rule, with its BadRequest", async () => {
    const refused = await connectJson(h1.ours, createOrg, numbered)
    expect(refused).toMatchObject({ status: 400, json: { code: "invalid_argument", message: "name: must be a string", details: [{ type: "google.rpc.BadRequest" }] } })
  })
})
