import type * as http2 from "node:http2"

/*
 * An HTTP/2 session that has ended must not keep its connection's place under MAX_CONNECTIONS.
 * Sessions end three ways, and Node 20 tells JavaScript of only one:
 *
 * - we end it (GOAWAY ENHANCE_YOUR_CALM, StreamResets.ts): `endSession` destroys it after a grace;
 * - a frame flood, or a frame nghttp2 cannot take at all: Node emits 'error' and destroys it itself;
 * - nghttp2 sends a GOAWAY of its own and stops reading: its rapid-reset limit (INTERNAL_ERROR), a
 *   protocol error (PROTOCOL_ERROR, FRAME_SIZE_ERROR, ...). Node emits nothing ('error',
 *   'frameError', 'goaway' and 'close' stay silent, `session.state` does not change), reads the
 *   socket no more, and so never sees the client's FIN either: the session waited for
 *   IDLE_TIMEOUT_MS, whether the client had left or held the socket open.
 *
 * The third is found by what it cannot do: read. A session with no open stream, once nothing has
 * arrived on it for a moment, is sent a PING; a session that reads answers it within a round trip,
 * and one that does not within `ackMillis` is destroyed. One PING per quiet spell, not one per
 * interval: its own ACK does not count as the client saying something new. Sessions with an open
 * stream are left alone (an answer being written to a slow reader stops Node's reads too), and are
 * bounded by the stream's own deadlines.
 */

/** How long a session told to go away has to close by itself before it is destroyed. */
const graceMillis = 1_000
/** How often sessions are looked at; one look with nothing read since the last is a quiet spell. */
const checkMillis = 250
/** How long a PING may wait for its ACK. */
const ackMillis = 1_000
/** A PING ACK's frame: nine octets of header, eight of payload. */
const pingAckBytes = 17

/** Sends GOAWAY with `code`, closes, and destroys the session after the grace if it is still there. */
export const endSession = (session: http2.Http2Session, code: number) => {
  // GOAWAY first, then close: `destroy` with a code of its own sent NO_ERROR in Node 20. The
  // streams still open are the client's to finish; the grace bounds a client that does not.
  session.goaway(code)
  session.close()
  setTimeout(() => session.destroy(), graceMillis).unref()
}

interface Watched {
  readonly session: http2.ServerHttp2Session
  open: number
  bytesRead: number
  /** This quiet spell has had its PING. */
  probed: boolean
  pingedAt: number | undefined
  /** A look has found the ACK late; the next destroys the session if it is still missing. */
  overdue: boolean
}

const bytesRead = (session: http2.Http2Session) => session.socket?.bytesRead ?? 0

const look = (watched: Watched, now: number) => {
  const { session } = watched
  if (watched.pingedAt !== undefined) {
    if (now - watched.pingedAt <= ackMillis) return
    // Timers run before the reads of the same turn of the event loop: after a stall of this
    // process, an ACK that has arrived is still unread. It gets one more turn before it counts as missing.
    if (watched.overdue) session.destroy()
    watched.overdue = true
    return
  }
  const read = bytesRead(session)
  if (read !== watched.bytesRead) {
    watched.bytesRead = read
    watched.probed = false
    return
  }
  if (watched.probed || watched.open > 0 || session.destroyed) return
  watched.probed = true
  const sent = session.ping((error) => {
    watched.pingedAt = undefined
    watched.overdue = false
    if (error !== null || session.destroyed) return
    const after = bytesRead(session)
    // More than the ACK arrived with it: the client said something new, a quiet spell to come.
    if (after - read > pingAckBytes) watched.probed = false
    watched.bytesRead = after
  })
  if (sent) watched.pingedAt = now
}

/**
 * Destroys, within about `ackMillis` of its last read, every session of `server` that nghttp2
 * has stopped reading (see above); the others answer a PING and are kept.
 */
export const destroyEndedSessions = (server: http2.Http2Server) => {
  const watched = new Set<Watched>()
  let timer: NodeJS.Timeout | undefined
  const lookAll = () => {
    const now = Date.now()
    for (const entry of watched) look(entry, now)
  }
  server.on("session", (session: http2.ServerHttp2Session) => {
    const entry: Watched = { session, open: 0, bytesRead: 0, probed: false, pingedAt: undefined, overdue: false }
    watched.add(entry)
    timer ??= setInterval(lookAll, checkMillis).unref()
    const closed = () => entry.open--
    session.on("stream", (stream: http2.ServerHttp2Stream) => {
      // A stream reset in the read that opened it is gone before its 'stream' event.
      if (stream.destroyed) return
      entry.open++
      stream.once("close", closed)
    })
    session.once("close", () => {
      watched.delete(entry)
      if (watched.size === 0 && timer !== undefined) timer = void clearInterval(timer)
    })
  })
}
