import { create } from "@bufbuild/protobuf"
import { Code, ConnectError } from "@connectrpc/connect"
import { connectNodeAdapter } from "@connectrpc/connect-node"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as http from "node:http"
import * as http2 from "node:http2"
import type { AddressInfo } from "node:net"
import { CreateOrgResponseSchema, GetOrgResponseSchema, OrgService } from "../../src/gen/org/v1beta1/org_pb.js"
import { envelope, rawHttp } from "../reliability/support/wire.js"

/**
 * The connect-node behaviours our edge corrects (src/transports/connect/ConnectEdge.ts composes the
 * corrections), shown on connect-node's own adapter without them. If an upgrade fixes or changes
 * one, its test here fails: then the correction must go (or change), not be applied twice.
 * Checked against 2.1.1 and 2.2.0 (2.2.0 changes none of them).
 */

const adapter = connectNodeAdapter({
  routes: (router) =>
    router.service(OrgService, {
      getOrg: (request) => {
        // A refusal whose message holds characters encodeURIComponent escapes and the gRPC spec does not.
        if (request.id === "refuse") throw new ConnectError("id: must be a UUID", Code.InvalidArgument)
        return create(GetOrgResponseSchema, { org: { id: request.id, name: "Acme" } })
      },
      createOrg: (request) => create(CreateOrgResponseSchema, { org: { id: request.id, name: request.name } })
    })
})

let thrown: Array<unknown> = []
let base = ""
let server: http.Server
let h2server: http2.Http2Server
let h2base = ""

beforeAll(async () => {
  server = http.createServer((request, response) => {
    try {
      adapter(request, response)
    } catch (error) {
      // Left to itself, this throw leaves the "request" listener: an uncaught exception that ends the process.
      thrown.push(error)
      response.destroy()
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  h2server = http2.createServer(adapter)
  await new Promise<void>((resolve) => h2server.listen(0, "127.0.0.1", resolve))
  h2base = `http://127.0.0.1:${(h2server.address() as AddressInfo).port}`
})

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
  await new Promise((resolve) => h2server.close(resolve))
})

const grpcCall = (path: string, body: Uint8Array) =>
  new Promise<Record<string, unknown>>((resolve, reject) => {
    const session = http2.connect(h2base)
    session.on("error", reject)
    const stream = session.request({ ":method": "POST", ":path": path, "content-type": "application/grpc", te: "trailers" })
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

describe("connect-node's behaviours that the edge corrects", () => {
  it("throws synchronously, out of the request listener, for an HTTP/1.0 request without Host (requestGuards)", async () => {
    thrown = []
    await rawHttp(base, "POST /org.v1beta1.OrgService/GetOrg HTTP/1.0\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}", 1_000)
    expect(thrown.length).toBe(1)
  })

  it("answers a binary message it cannot decode as internal, not invalid_argument (undecodableRequests)", async () => {
    const reply = await fetch(`${base}/org.v1beta1.OrgService/GetOrg`, {
      method: "POST",
      headers: { "content-type": "application/proto" },
      body: Uint8Array.from([0x0a, 0x05, 0x61])
    })
    expect(reply.status).toBe(500)
    expect(await reply.json()).toMatchObject({ code: "internal", message: expect.stringMatching(/^parse binary: /) })
    const grpc = await grpcCall("/org.v1beta1.OrgService/GetOrg", envelope(Uint8Array.from([0x0a, 0x05, 0x61])))
    expect(grpc["grpc-status"]).toBe("13")
  })

  it("percent-encodes grpc-message beyond what the gRPC spec asks (grpcMessageEncoding)", async () => {
    const id = new TextEncoder().encode("refuse")
    const grpc = await grpcCall("/org.v1beta1.OrgService/GetOrg", envelope(Uint8Array.from([0x0a, id.length, ...id])))
    expect(grpc["grpc-status"]).toBe("3")
    // The spec leaves printable ASCII but `%` as it is: "id: must be a UUID".
    expect(grpc["grpc-message"]).toBe("id%3A%20must%20be%20a%20UUID")
  })
})
