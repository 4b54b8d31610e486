import * as http2 from "node:http2"
import type * as net from "node:net"
import { awaitsBody } from "./BodyWaitLimit.js"
import type { RequestHandler } from "../http/RequestHandler.js"

/*
 * MAX_CONNECTIONS bounds a port's connections, but a bound that refuses the next connection is a
 * lock an attacker holds cheaply: 1,100 HTTP/2 connections from one client, each with one stream
 * whose body comes a byte every 5 s (or only the preface), keep every place of a port, and every
 * other caller is refused (docs/reliability.md §2f). So a port at its bound makes room instead, as
 * Envoy's overload manager does (it closes the connections that cost most, not the next one to
 * arrive): it closes the connection worth least, in this order:
 *
 * 1. one that has not yet made its first request (HTTP/2: preface, but no stream yet) though
 *    connected for `youngMillis`, the one connected longest first: an honest client sends its
 *    request within a round trip;
 * 2. one whose calls are all still waiting for their body, the one waiting longest first (the
 *    bodies an attacker dribbles are always the oldest; an honest one arrives within a round trip);
 * 3. one with no call open, the one idle longest first;
 * 4. only then one connected less than `youngMillis` ago that has made no request yet: otherwise a
 *    client reconnecting at once whenever it is closed would close every new connection before its
 *    first request, an honest caller's among them, and never one of the places it holds.
 *
 * A connection answering a call is never closed to make room; when every one is, the new one is
 * refused. An HTTP/2 connection is sent GOAWAY NO_ERROR naming the last stream it took
 * (session.close()), so an honest client retries only the requests it sent after that, none of
 * which ran; one still open after `closingGraceMillis` is destroyed. Any other connection is closed.
 *
 * And one peer address holds at most `maxPerAddress` places (0: no bound), as nginx's `limit_conn`
 * on `$binary_remote_addr` and HAProxy's stick tables on `src` do: a connection from an address at
 * its share is refused, not let in by closing another of that address's. Refusing needs no more
 * state than a count per address, tells the client plainly, and an address at its share is either
 * an abuser or a balancer, for which the setting is turned off (docs/deployment.md).
 *
 * What each connection is doing is kept as counts and one ordered set per state, moved on each
 * call's start, body and end: O(1), no timer, and the connection to close is each set's first.
 */

/** How long a connection told to go may take to close by itself before it is destroyed. */
const closingGraceMillis = 1_000

/** A connection this new has had no time to make its first request yet (many round trips, a busy machine's pauses). */
const youngMillis = 1_000

class Place {
  /** The state set the place is in (first request not made, only bodies awaited, idle); none when busy or gone. */
  in: Set<Place> | undefined = undefined
  session: http2.ServerHttp2Session | undefined = undefined
  served = false
  gone = false
  calls = 0
  awaiting = 0
  readonly since = Date.now()
  constructor(readonly socket: net.Socket, readonly address: string, readonly key: string) {}
}

export interface PlacesOptions {
  /** Connections a port holds at once (MAX_CONNECTIONS). */
  readonly max: number
  /** Of those, the most one peer address may hold (MAX_CONNECTIONS_PER_ADDRESS); 0: no bound. */
  readonly maxPerAddress: number
}

/** A live connection's peer, as a key: the listener's own end is the same for all of them. */
const endpoint = (socket: { readonly remoteAddress?: string | undefined; readonly remotePort?: number | undefined }) =>
  `${socket.remoteAddress} ${socket.remotePort}`

/**
 * The places of one port's connections. `admit` each new socket (false: refused, and destroyed);
 * `track` wraps the request handler so that each call's start, body and end are noted; `onSession`
 * is told of each HTTP/2 session.
 */
export const connectionPlaces = (options: PlacesOptions) => {
  const beforeFirstRequest = new Set<Place>()
  const awaitingBodies = new Set<Place>()
  const idle = new Set<Place>()
  /** Every place held, by its peer's endpoint (an HTTP/2 session shows its socket only through a proxy). */
  const held = new Map<string, Place>()
  const perAddress = new Map<string, number>()
  /** Connections told to go and not yet closed: at most `max`, so that sockets stay within twice it. */
  const closing = new Set<net.Socket>()
  const bySession = new WeakMap<http2.Http2Session, Place>()
  const bySocket = new WeakMap<net.Socket, Place>()
  const perAddressBound = options.maxPerAddress > 0 && options.maxPerAddress < options.max

  const settle = (place: Place) => {
    const target = place.gone
      ? undefined
      : place.calls === 0
      ? (place.served ? idle : beforeFirstRequest)
      : place.awaiting === place.calls
      ? awaitingBodies
      : undefined
    if (target === place.in) return
    place.in?.delete(place)
    target?.add(place)
    place.in = target
  }

  const leave = (place: Place) => {
    if (place.gone) return
    place.gone = true
    place.in?.delete(place)
    place.in = undefined
    held.delete(place.key)
    const count = (perAddress.get(place.address) ?? 1) - 1
    if (count === 0) perAddress.delete(place.address)
    else perAddress.set(place.address, count)
  }

  const makeRoom = (place: Place) => {
    const { socket, session } = place
    leave(place)
    const oldest = closing.size >= options.max ? closing.values().next().value : undefined
    if (oldest !== undefined) {
      closing.delete(oldest)
      oldest.destroy()
    }
    closing.add(socket)
    socket.once("close", () => closing.delete(socket))
    if (session === undefined || session.destroyed) return socket.destroy()
    session.close()
    // The socket, not the session: a session closed gracefully ends its socket and then waits for
    // the client to close it, which a client that ignores GOAWAY never does.
    setTimeout(() => socket.destroy(), closingGraceMillis).unref()
  }

  /** For the HTTP/2 server's 'session' event: the session of a place, to be sent GOAWAY if it must make room. */
  const onSession = (session: http2.ServerHttp2Session) => {
    const place = held.get(endpoint(session.socket))
    if (place === undefined) return
    place.session = session
    bySession.set(session, place)
  }

  const leastWorth = () => {
    const silent = beforeFirstRequest.values().next().value
    const stale = silent !== undefined && Date.now() - silent.since >= youngMillis ? silent : undefined
    return stale ?? awaitingBodies.values().next().value ?? idle.values().next().value ?? silent
  }

  const admit = (socket: net.Socket): boolean => {
    const address = socket.remoteAddress ?? ""
    const ofAddress = perAddress.get(address) ?? 0
    const worthLeast = held.size < options.max ? undefined : leastWorth()
    if ((perAddressBound && ofAddress >= options.maxPerAddress) || (held.size >= options.max && worthLeast === undefined)) {
      socket.destroy()
      return false
    }
    if (worthLeast !== undefined) makeRoom(worthLeast)
    const place = new Place(socket, address, endpoint(socket))
    held.set(place.key, place)
    bySocket.set(socket, place)
    perAddress.set(address, ofAddress + 1)
    settle(place)
    socket.once("close", () => leave(place))
    return true
  }

  const track = (handler: RequestHandler): RequestHandler => (request, response) => {
    const place = request instanceof http2.Http2ServerRequest
      ? (request.stream.session === undefined ? undefined : bySession.get(request.stream.session))
      : bySocket.get(request.socket)
    if (place !== undefined) {
      let awaiting = awaitsBody(request)
      const arrived = () => {
        if (!awaiting) return
        awaiting = false
        place.awaiting--
        settle(place)
      }
      place.served = true
      place.calls++
      if (awaiting) {
        place.awaiting++
        request.on("end", arrived)
      }
      // A response closes once (Node guards its 'close'), a body ends once and `arrived` counts it
      // once: `on`, without the wrapper and removal `once` adds to every call.
      response.on("close", () => {
        arrived()
        place.calls--
        settle(place)
      })
      settle(place)
    }
    handler(request, response)
  }

  return { admit, track, onSession }
}
