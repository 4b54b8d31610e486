import * as http2 from "node:http2"
import type { RequestHandler } from "../http/RequestHandler.js"
import { refuse } from "../http/Refusal.js"

/*
 * node:http bounds an HTTP/1.1 request's headers and body in time (headersTimeout,
 * requestTimeout); node:http2 has neither, and only an inactivity timeout that a client resets
 * with every byte it dribbles or PING it sends. These give HTTP/2 the same bounds.
 */

/*
 * A request that did not arrive in time is answered DEADLINE_EXCEEDED rather than CANCELLED (a
 * bare RST_STREAM): it says what happened, with a message, and it is a status gRPC and Connect
 * clients know they may retry, as nothing of the call ran. HTTP 408 in every non-gRPC style, as
 * node:http answers HTTP/1.1, with the style's error body for clients that read a code.
 */

const timedOut = (request: http2.Http2ServerRequest, response: http2.Http2ServerResponse, millis: number) => {
  const stream = request.stream
  // Once the whole request is in, the rest is the server's time, as with node:http's requestTimeout.
  if (stream.destroyed || stream.state.remoteClose) return
  if (!response.headersSent) {
    refuse(request, response, { kind: "DeadlineExceeded", message: `the request did not arrive in full within ${millis} ms` })
  }
  // The handler is reading this request, so Node does not end the stream after the answer. CANCEL
  // rather than §8.1's NO_ERROR: Node 20 loses some of the NO_ERROR resets sent after an answer
  // with a body while the request is being read (never a CANCEL), leaving the stream open to a
  // client that keeps sending.
  if (!stream.closed) stream.close(http2.constants.NGHTTP2_CANCEL)
  // node:http closes an HTTP/1.1 connection after its 408; the HTTP/2 equivalent is GOAWAY: no new
  // streams on this connection, the open ones finish. It frees the connection's slot under
  // MAX_CONNECTIONS instead of leaving it to a client that sends this slowly.
  stream.session?.close()
}

/**
 * Each HTTP/2 request must arrive in full (END_STREAM) within `millis` of its HEADERS; one that
 * has not is answered DEADLINE_EXCEEDED in its protocol's form (see `requestTimeout`), or reset
 * if its response had already begun, and its connection is sent GOAWAY.
 */
export const withStreamDeadline = (handler: RequestHandler, millis: number): RequestHandler => (request, response) => {
  if (request instanceof http2.Http2ServerRequest && response instanceof http2.Http2ServerResponse) {
    const timer = setTimeout(() => timedOut(request, response, millis), millis)
    // Cleared as soon as the request is in (nothing left to time), not only when the stream closes:
    // a stream that then stays open (a health Watch) would hold the timer, for nothing, until then.
    const arrived = () => {
      clearTimeout(timer)
      request.off("end", arrived)
      request.stream.off("close", arrived)
    }
    request.once("end", arrived)
    request.stream.once("close", arrived)
  }
  handler(request, response)
}

/**
 * A session must open its first stream (a complete HEADERS) within `headersTimeoutMillis`, and is
 * closed once it has had no open stream for `idleTimeoutMillis`, however many PINGs or SETTINGS
 * it sends meanwhile.
 */
export const closeQuietSessions = (
  server: http2.Http2Server,
  options: { readonly headersTimeoutMillis: number; readonly idleTimeoutMillis: number }
) =>
  server.on("session", (session) => {
    let open = 0
    const closeIfQuiet = () => {
      session.close()
      // close() waits for a HEADERS block still arriving (CONTINUATION frames dribbled one at a
      // time), which is no stream yet: the session gets one more headers timeout, then ends.
      timer = setTimeout(() => open === 0 && session.destroy(), options.headersTimeoutMillis)
    }
    let timer = setTimeout(closeIfQuiet, options.headersTimeoutMillis)
    // One listener for all the session's streams (a stream closes once): what each open stream
    // holds here is an entry in its listener list, not a closure of its own.
    const closed = () => {
      open--
      if (open === 0 && !session.closed) timer = setTimeout(closeIfQuiet, options.idleTimeoutMillis)
    }
    session.on("stream", (stream: http2.ServerHttp2Stream) => {
      open++
      clearTimeout(timer)
      stream.on("close", closed)
    })
    session.once("close", () => clearTimeout(timer))
  })
