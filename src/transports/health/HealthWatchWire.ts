import { create, toBinary, toJsonString } from "@bufbuild/protobuf"
import type { ConnectError } from "@connectrpc/connect"
import { compressionBrotli, compressionGzip } from "@connectrpc/connect-node"
import { encodeEnvelope } from "@connectrpc/connect/protocol"
import * as connectProtocol from "@connectrpc/connect/protocol-connect"
import * as grpcProtocol from "@connectrpc/connect/protocol-grpc"
import * as grpcWebProtocol from "@connectrpc/connect/protocol-grpc-web"
import { HealthCheckResponse_ServingStatus as Status, HealthCheckResponseSchema } from "../../gen/grpc/health/v1/health_pb.js"
import type { Response } from "../http/RequestHandler.js"

/*
 * The wire forms of a health Watch stream (HealthWatch.ts), which are connect-es's own, from its
 * public protocol modules: the content types (`parseContentType`), the header names of compression
 * and deadlines, the response content types, and each protocol's ending (`setTrailerStatus`,
 * `trailerSerialize`, `endStreamToJson`). The replies are the six possible messages, encoded once.
 */

export type Protocol = "grpc" | "grpc-web" | "connect"

export interface Form {
  readonly protocol: Protocol
  readonly binary: boolean
}

/** The streaming protocol and codec of a content type, as connect-es's handlers read it. */
export const formOf = (contentType: string | undefined): Form | undefined => {
  const grpc = grpcProtocol.parseContentType(contentType ?? null)
  if (grpc !== undefined) return { protocol: "grpc", binary: grpc.binary }
  const grpcWeb = grpcWebProtocol.parseContentType(contentType ?? null)
  // connect-es refuses grpc-web-text (415).
  if (grpcWeb !== undefined) return grpcWeb.text ? undefined : { protocol: "grpc-web", binary: grpcWeb.binary }
  const connect = connectProtocol.parseContentType(contentType ?? null)
  return connect?.stream === true ? { protocol: "connect", binary: connect.binary } : undefined
}

/** Each protocol's header names and response content types. */
export const protocols = {
  "grpc": {
    encoding: grpcProtocol.headerEncoding,
    acceptEncoding: grpcProtocol.headerAcceptEncoding,
    timeout: grpcProtocol.headerTimeout,
    parseTimeout: grpcProtocol.parseTimeout,
    contentType: { binary: grpcProtocol.contentTypeProto, json: grpcProtocol.contentTypeJson }
  },
  "grpc-web": {
    encoding: grpcProtocol.headerEncoding,
    acceptEncoding: grpcProtocol.headerAcceptEncoding,
    timeout: grpcProtocol.headerTimeout,
    parseTimeout: grpcProtocol.parseTimeout,
    contentType: { binary: grpcWebProtocol.contentTypeProto, json: grpcWebProtocol.contentTypeJson }
  },
  "connect": {
    encoding: connectProtocol.headerStreamEncoding,
    acceptEncoding: connectProtocol.headerStreamAcceptEncoding,
    timeout: connectProtocol.headerTimeout,
    parseTimeout: connectProtocol.parseTimeout,
    contentType: { binary: connectProtocol.contentTypeStreamProto, json: connectProtocol.contentTypeStreamJson }
  }
} as const

/** What connect-node accepts (ConnectNodeAdapter.ts), so that a compressed request reads the same here. */
export const acceptCompression = [compressionGzip, compressionBrotli]

/** Every reply a Watch stream can send, enveloped, per codec: encoded once for all streams. */
export const replies = (() => {
  const encode = (status: Status, binary: boolean) => {
    const message = create(HealthCheckResponseSchema, { status })
    const bytes = binary ? toBinary(HealthCheckResponseSchema, message) : new TextEncoder().encode(toJsonString(HealthCheckResponseSchema, message))
    return Buffer.from(encodeEnvelope(0, bytes))
  }
  const of = (binary: boolean) => ({
    serving: encode(Status.SERVING, binary),
    notServing: encode(Status.NOT_SERVING, binary),
    unknown: encode(Status.SERVICE_UNKNOWN, binary)
  })
  return { binary: of(true), json: of(false) }
})()

const encoder = new TextEncoder()

/** The end of a stream whose response has begun, in its protocol's form: OK, or `error`. */
export const endStream = (response: Response, protocol: Protocol, error: ConnectError | undefined) => {
  switch (protocol) {
    case "grpc":
      response.addTrailers(Object.fromEntries(grpcProtocol.setTrailerStatus(new Headers(), error)))
      return response.end()
    case "grpc-web":
      return response.end(
        encodeEnvelope(grpcWebProtocol.trailerFlag, grpcWebProtocol.trailerSerialize(grpcProtocol.setTrailerStatus(new Headers(), error)))
      )
    case "connect":
      return response.end(
        encodeEnvelope(connectProtocol.endStreamFlag, encoder.encode(JSON.stringify(connectProtocol.endStreamToJson(new Headers(), error, undefined))))
      )
  }
}
