import type * as http from "node:http"
import * as http2 from "node:http2"
import type * as net from "node:net"
import type { RequestHandler, Response } from "../http/RequestHandler.js"

/*
 * IDLE_TIMEOUT_MS closes a connection that has nothing to do. Both Node servers have a timeout for
 * that (`server.setTimeout`), but it counts silence on the socket (HTTP/2: on the session), and a
 * call the server works on for longer is silent: Node would destroy its connection under it
 * (HTTP/1.1: ECONNRESET; HTTP/2: every stream reset CANCEL) while the call runs on and commits, so
 * the caller is told nothing of a write that happened. Both servers let a 'timeout' listener decide
 * instead of destroying; this one keeps a connection while an answer it owes is still being made,
 * and closes the others as Node's own timeout would.
 *
 * "Being made" ends when the handler has ended its answer, not when the client has read it: a
 * client that stops reading an answer it was given is idle for this purpose, and its connection is
 * closed (without that, a client could hold a connection forever by not reading).
 */

type Connection = net.Socket | http2.Http2Session

/** The answers each connection (an HTTP/1.1 socket, an HTTP/2 session) has been asked for and not closed. */
const answers = new WeakMap<Connection, Set<Response>>()

/** Notes each request's answer against its connection, until the answer closes. */
export const noteAnswers = (handler: RequestHandler): RequestHandler => (request, response) => {
  const connection = request instanceof http2.Http2ServerRequest ? request.stream.session : request.socket
  if (connection !== undefined) {
    let owed = answers.get(connection)
    if (owed === undefined) answers.set(connection, owed = new Set())
    owed.add(response)
    // A response closes once (Node guards its 'close'): `on`, without the wrapper and removal `once` adds to every call.
    response.on("close", () => owed.delete(response))
  }
  handler(request, response)
}

/** A request is in flight on the connection: its answer has not been ended yet. */
const inFlight = (connection: Connection) => {
  for (const response of answers.get(connection) ?? []) if (!response.writableEnded) return true
  return false
}

/**
 * Closes a connection once it has been silent for `millis` with no request in flight. A timeout
 * that fires during a call is let pass, and counts again from the next byte sent or received, so
 * that a connection's idle time starts at most at the end of its last answer. (HTTP/2 sessions
 * with no open stream are also closed by `closeQuietSessions`, however many PINGs keep them from
 * being silent.)
 */
export const closeWhenIdle = (h1: http.Server, h2: http2.Http2Server, millis: number) => {
  // node:http listens to every timeout of the socket (and Node arms it again with its next byte).
  h1.setTimeout(millis)
  h1.on("timeout", (socket: net.Socket) => {
    if (!inFlight(socket)) socket.destroy()
  })
  // Not h2.setTimeout: node:http2 listens to a session's timeout once, so a timeout let pass during
  // a call would be its last, and a client that then stops reading its answer would keep the
  // connection for good. Each session's timeout is armed here, and again each time it is let pass.
  h2.on("session", (session: http2.ServerHttp2Session) => {
    const onSilence = () => {
      if (inFlight(session)) session.setTimeout(millis, onSilence)
      else session.destroy()
    }
    session.setTimeout(millis, onSilence)
  })
}
