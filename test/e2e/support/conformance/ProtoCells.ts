import { type DescMethodUnary, fromBinary, fromJson, type JsonValue, toBinary, toJson } from "@bufbuild/protobuf"
import { ConnectError, type Transport } from "@connectrpc/connect"
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node"
import * as grpc from "@grpc/grpc-js"
import type { ServiceUrls } from "../StyleClient.js"
import type { CatalogOperation } from "./Catalog.js"
import { type Answer, type Cell, codeNameOf } from "./Cell.js"

/**
 * The protobuf styles: connect-node's transports (Connect JSON and binary, gRPC-Web, gRPC) and
 * @grpc/grpc-js, each calling a method found by name in the service's descriptor, with the
 * payload read as the request message's proto3 JSON and the reply written back as JSON.
 */

/** The descriptor's method of an operation: the same name (`CreateOrg`). */
const methodOf = (operation: CatalogOperation) => {
  const method = operation.api.connect.service.methods.find((each) => each.name === operation.tag)
  if (method === undefined || method.methodKind !== "unary") {
    throw new Error(`${operation.api.connect.service.typeName} has no unary method ${operation.tag}`)
  }
  return method as DescMethodUnary
}

/** Implicit values written out: a last page's empty `nextPageToken` is there, as the other styles write it. */
const replyJson = { alwaysEmitImplicit: true } as const

/**
 * HTTP/2 sessions idle a second are closed by the client: connect-node 2.1 can throw an uncaught
 * error when a server's GOAWAY (its shutdown) reaches an idle session.
 */
const idleConnectionTimeoutMs = 1_000

const connectCell = (style: string, protocol: Cell["protocol"], transport: (baseUrl: string) => Transport): Cell => ({
  style,
  protocol,
  make: (urls: ServiceUrls) => {
    const transports = new Map<string, Transport>()
    const transportOf = (baseUrl: string) => {
      const made = transports.get(baseUrl) ?? transport(baseUrl)
      transports.set(baseUrl, made)
      return made
    }
    return {
      call: async (operation, payload): Promise<Answer> => {
        const method = methodOf(operation)
        try {
          const input = fromJson(method.input, payload as JsonValue)
          const reply = await transportOf(urls[operation.service]).unary(method, undefined, 10_000, undefined, input)
          return { ok: true, reply: toJson(method.output, reply.message, replyJson) }
        } catch (error) {
          if (error instanceof ConnectError) return { ok: false, code: codeNameOf(error.code), message: error.rawMessage }
          throw error
        }
      },
      // connect-node's transports hold no handle to close: idle HTTP/2 sessions close themselves.
      close: () => transports.clear()
    }
  }
})

const versions = [["HTTP/1.1", "1.1"], ["HTTP/2", "2"]] as const

const connectCells = versions.flatMap(([protocol, httpVersion]) => [
  connectCell("Connect JSON (connect-node)", protocol, (baseUrl) => createConnectTransport({ baseUrl, httpVersion, idleConnectionTimeoutMs })),
  connectCell("Connect binary (connect-node)", protocol, (baseUrl) =>
    createConnectTransport({ baseUrl, httpVersion, useBinaryFormat: true, idleConnectionTimeoutMs })),
  // Get and List are NO_SIDE_EFFECTS: this client sends them as HTTP GET (the creates as POST).
  connectCell("Connect JSON with GET reads (connect-node)", protocol, (baseUrl) =>
    createConnectTransport({ baseUrl, httpVersion, useHttpGet: true, idleConnectionTimeoutMs })),
  connectCell("gRPC-Web (connect-node)", protocol, (baseUrl) => createGrpcWebTransport({ baseUrl, httpVersion, idleConnectionTimeoutMs }))
])

/** @grpc/grpc-js, the other gRPC stack: its own HTTP/2 client and framing; the messages encoded from the descriptor. */
const grpcJsCell: Cell = {
  style: "gRPC (@grpc/grpc-js)",
  protocol: "HTTP/2",
  make: (urls) => {
    const clients = new Map<string, grpc.Client>()
    const clientOf = (baseUrl: string) => {
      const made = clients.get(baseUrl) ?? new grpc.Client(new URL(baseUrl).host, grpc.credentials.createInsecure())
      clients.set(baseUrl, made)
      return made
    }
    return {
      call: (operation, payload) => {
        const method = methodOf(operation)
        const path = `/${operation.api.connect.service.typeName}/${method.name}`
        return new Promise<Answer>((resolve) => {
          clientOf(urls[operation.service]).makeUnaryRequest(
            path,
            (json: unknown) => Buffer.from(toBinary(method.input, fromJson(method.input, json as JsonValue))),
            (bytes: Buffer) => toJson(method.output, fromBinary(method.output, bytes), replyJson),
            payload,
            { deadline: Date.now() + 10_000 },
            (error, reply) =>
              resolve(error == null ? { ok: true, reply } : { ok: false, code: codeNameOf(error.code), message: error.details })
          )
        })
      },
      close: () => clients.forEach((client) => client.close())
    }
  }
}

export const protoCells: ReadonlyArray<Cell> = [
  ...connectCells,
  connectCell("gRPC (connect-node)", "HTTP/2", (baseUrl) => createGrpcTransport({ baseUrl, idleConnectionTimeoutMs })),
  grpcJsCell
]
