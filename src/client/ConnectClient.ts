import type { DescService } from "@bufbuild/protobuf"
import { type Client, createClient, type Interceptor } from "@connectrpc/connect"
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node"

export interface ConnectClientOptions {
  /** `connect` (the default; JSON unless `binary`), `grpc` (HTTP/2) or `grpc-web`. */
  readonly protocol?: "connect" | "grpc" | "grpc-web"
  /** Protobuf binary instead of JSON, for Connect and gRPC-Web. */
  readonly binary?: boolean
  /** `Authorization: Bearer <token>` on every call, when the server has API_TOKEN set. */
  readonly token?: string
}

/**
 * A Connect, gRPC or gRPC-Web client of one service, over the generated descriptors:
 *
 *   const orgs = connectClient(OrgService, "http://127.0.0.1:9090", { protocol: "grpc" })
 *   const { org } = await orgs.getOrg({ id })
 */
export const connectClient = <S extends DescService>(
  service: S,
  baseUrl: string,
  options: ConnectClientOptions = {}
): Client<S> => {
  const token = options.token
  const interceptors: Array<Interceptor> = token === undefined ? [] : [(next) => (request) => {
    request.header.set("authorization", `Bearer ${token}`)
    return next(request)
  }]
  const useBinaryFormat = options.binary ?? false
  const transport = options.protocol === "grpc"
    ? createGrpcTransport({ baseUrl, interceptors })
    : options.protocol === "grpc-web"
    ? createGrpcWebTransport({ baseUrl, httpVersion: "1.1", useBinaryFormat, interceptors })
    : createConnectTransport({ baseUrl, httpVersion: "1.1", useBinaryFormat, interceptors })
  return createClient(service, transport)
}
