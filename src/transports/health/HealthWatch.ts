import { compressionNegotiate, createMethodSerializationLookup } from "@connectrpc/connect/protocol"
import { Health } from "../../gen/grpc/health/v1/health_pb.js"
import type { Request, RequestHandler } from "../http/RequestHandler.js"
import { refuse } from "../http/Refusal.js"
import { type HealthWatchOptions, openWatchStream, type Port } from "./HealthWatchStream.js"
import { acceptCompression, formOf, protocols } from "./HealthWatchWire.js"
// A deadline longer than a Node timer takes is dropped, as correction 2 (timerOverflowDeadlines) does.
import { maxTimerMillis } from "../corrections/connect/timerOverflowDeadlines.js"

/*
 * gRPC health Watch, served on Node's request and response rather than through connect-node.
 *
 * Health is open to anyone and a Watch stream stays open as long as its client likes, so what one
 * open stream costs is what an anonymous caller can multiply. Through connect-node a stream that
 * does nothing but wait holds its whole pipeline: a dozen suspended async generators, three
 * AbortControllers, the universal request and response, several times what Node's own HTTP/2
 * stream and its compatibility request and response hold (both: docs/reliability.md §2h). Here a
 * waiting stream holds one small object, listed in the port's HealthSubscription, and the replies
 * are the six possible messages, encoded once.
 *
 * The wire forms are connect-es's own, from its public protocol modules: the content types
 * (`parseContentType`), compression (`compressionNegotiate`, `envelopeDecompress`), deadlines
 * (`parseTimeout`), the request message's decoding (`createMethodSerializationLookup`, with the
 * strict JSON read options of ConnectNodeAdapter.ts), and each protocol's ending (`setTrailerStatus`,
 * `trailerSerialize`, `endStreamToJson`). A request this does not take (a method other than POST,
 * a content type no streaming protocol takes, an unknown compression) goes to connect-node, which
 * refuses it in its own words before running anything.
 *
 * Here: admission and negotiation. HealthWatchWire.ts holds the wire forms, HealthWatchRequest.ts
 * the request message's decoding, HealthWatchStream.ts an open stream.
 */

const header = (request: Request, name: string): string | null => {
  const value = request.headers[name.toLowerCase()]
  return typeof value === "string" ? value : null
}


/**
 * `grpc.health.v1.Health/Watch` in gRPC, gRPC-Web and Connect streaming, binary and JSON: the
 * state of the port (or of a service on it) now, then at every change, until the client goes
 * away or its deadline passes; SERVICE_UNKNOWN and the end for a service not served here. At
 * most `watches.max` streams in the process: one more is refused RESOURCE_EXHAUSTED before its
 * body is read. (Per connection, HTTP/2 caps streams at MAX_STREAMS_PER_CONNECTION; an HTTP/1.1
 * connection carries one.)
 */
export const healthWatch = (options: HealthWatchOptions): RequestHandler => {
  const port: Port = {
    options,
    serialization: createMethodSerializationLookup(Health.method.watch, undefined, options.jsonOptions, {
      readMaxBytes: options.readMaxBytes,
      writeMaxBytes: 0xffffffff
    })
  }

  return (request, response) => {
    const form = request.method === "POST" ? formOf(request.headers["content-type"]) : undefined
    if (form === undefined) return options.fallback(request, response)
    const protocol = protocols[form.protocol]
    const compression = compressionNegotiate(
      acceptCompression,
      header(request, protocol.encoding),
      header(request, protocol.acceptEncoding),
      protocol.acceptEncoding
    )
    if (compression.error !== undefined) return options.fallback(request, response)

    if (!options.watches.admit()) {
      return refuse(request, response, {
        kind: "ResourceExhausted",
        message: `too many health Watch streams open in this process (MAX_HEALTH_WATCHES=${options.watches.max}); use Check, or watch again later`
      })
    }
    const timeout = protocol.parseTimeout(header(request, protocol.timeout), Number.MAX_SAFE_INTEGER)
    if (timeout.error !== undefined) {
      options.watches.leave()
      return refuse(request, response, { kind: "InvalidArgument", message: timeout.error.rawMessage })
    }
    const deadline = timeout.timeoutMs !== undefined && timeout.timeoutMs <= maxTimerMillis ? timeout.timeoutMs : undefined
    openWatchStream(request, response, form, compression.request, port, deadline)
  }
}
