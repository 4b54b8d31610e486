/**
 * `onboarding-services-client/node`: a Connect, gRPC or gRPC-Web transport on Node's own HTTP
 * stacks (`@connectrpc/connect-node`), kept out of the main entry so that it bundles for a browser.
 */
import type { Transport } from "@connectrpc/connect"
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node"
import { bearerToken } from "./ConnectClient.js"

export interface NodeTransportOptions {
  /** `connect` (the default; JSON unless `binary`), `grpc` (HTTP/2) or `grpc-web`. */
  readonly protocol?: "connect" | "grpc" | "grpc-web"
  /** Protobuf binary instead of JSON, for Connect and gRPC-Web. */
  readonly binary?: boolean
  /** `Authorization: Bearer <token>` on every call, when the server has API_TOKEN set. */
  readonly token?: string
}

/**
 * The transport for `connectClient` to a port at `baseUrl`:
 *
 *   const orgs = connectClient(OrgService, nodeTransport("http://127.0.0.1:9090", { protocol: "grpc" }))
 */
export const nodeTransport = (baseUrl: string, options: NodeTransportOptions = {}): Transport => {
  const interceptors = options.token === undefined ? [] : [bearerToken(options.token)]
  const useBinaryFormat = options.binary ?? false
  return options.protocol === "grpc"
    ? createGrpcTransport({ baseUrl, interceptors })
    : options.protocol === "grpc-web"
    ? createGrpcWebTransport({ baseUrl, httpVersion: "1.1", useBinaryFormat, interceptors })
    : createConnectTransport({ baseUrl, httpVersion: "1.1", useBinaryFormat, interceptors })
}
