import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Data, Effect, Option } from "effect"
import type { Readable } from "node:stream"

/** What every style tells a caller whose request is over MAX_BODY_BYTES: the setting that bounds it, by name. */
export const overMaxBodyBytes = (maxBytes: number, what = "request body") =>
  `${what} is larger than MAX_BODY_BYTES (${maxBytes} bytes)`

/** The request body is larger than MAX_BODY_BYTES. */
export class BodyTooLarge extends Data.TaggedError("BodyTooLarge")<{ readonly maxBytes: number }> {
  override get message() {
    return overMaxBodyBytes(this.maxBytes)
  }
}

/** The client went away, or the connection failed, before the body was complete. */
export class BodyUnreadable extends Data.TaggedError("BodyUnreadable")<{ readonly cause?: unknown }> {}

/**
 * The body of the current request (node:http or node:http2 underneath), read up to the
 * platform's `HttpIncomingMessage.MaxBodySize`, which the port sets to MAX_BODY_BYTES.
 *
 * The platform's own `request.text` applies the same limit, but then destroys the request, and
 * with it the connection, so the client gets a reset instead of its 413; and it waits for a
 * declared `Content-Length` of any size to arrive. Here a declared length over the limit fails at
 * once, and a body growing past it fails as soon as it does. What is left is then discarded as
 * it arrives, never buffered, so the connection stays up to carry the answer (and is reusable once
 * the client stops; the request timeout bounds a client that does not).
 */
export const boundedBody: Effect.Effect<
  Buffer,
  BodyTooLarge | BodyUnreadable,
  HttpServerRequest.HttpServerRequest
> = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const maxBytes = Option.match(yield* HttpIncomingMessage.MaxBodySize, {
    onNone: () => Number.POSITIVE_INFINITY,
    onSome: Number
  })
  // Typed as node:http's request; on an HTTP/2 connection it is node:http2's, also a Readable.
  const source: Readable = NodeHttpServerRequest.toIncomingMessage(request)
  const discardRest = () => source.resume()
  if (Number(request.headers["content-length"]) > maxBytes) {
    discardRest()
    return yield* new BodyTooLarge({ maxBytes })
  }
  return yield* Effect.async<Buffer, BodyTooLarge | BodyUnreadable>((resume) => {
    const chunks: Array<Buffer> = []
    let size = 0
    const stop = () => {
      source.off("data", onData)
      source.off("end", onEnd)
      source.off("error", onError)
      source.off("close", onClose)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= maxBytes) return void chunks.push(chunk)
      stop()
      discardRest()
      resume(Effect.fail(new BodyTooLarge({ maxBytes })))
    }
    const onEnd = () => {
      stop()
      resume(Effect.succeed(Buffer.concat(chunks)))
    }
    const onError = (cause: unknown) => {
      stop()
      resume(Effect.fail(new BodyUnreadable({ cause })))
    }
    const onClose = () => onError(undefined)
    source.on("data", onData)
    source.once("end", onEnd)
    source.once("error", onError)
    source.once("close", onClose)
    return Effect.sync(stop)
  })
})
