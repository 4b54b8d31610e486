import type { DescService } from "@bufbuild/protobuf"
import { type Client, createClient, type Interceptor, type Transport } from "@connectrpc/connect"

/**
 * A Connect, gRPC or gRPC-Web client of one service, over the generated descriptors and the
 * caller's transport: `@connectrpc/connect-web` in a browser, `@connectrpc/connect-node` (or this
 * package's `/node` entry, `nodeTransport`) in Node, as connect-es leaves that choice to its caller:
 *
 *   const orgs = connectClient(OrgService, createConnectTransport({ baseUrl: "http://127.0.0.1:9090" }))
 *   const { org } = await orgs.getOrg({ id })
 */
export const connectClient = <S extends DescService>(service: S, transport: Transport): Client<S> =>
  createClient(service, transport)

/** `Authorization: Bearer <token>` on every call, for a transport's `interceptors` when the server has API_TOKEN set. */
export const bearerToken = (token: string): Interceptor => (next) => (request) => {
  request.header.set("authorization", `Bearer ${token}`)
  return next(request)
}
