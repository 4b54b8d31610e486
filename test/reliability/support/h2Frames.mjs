// HTTP/2 written frame by frame, for the raw attackers run as child processes (plain JavaScript:
// a child starts with `node` alone, no compiler) and for the tests that write frames themselves
// (h2Frames.d.mts gives them the types). No HTTP/2 library: what goes on the wire is exactly what
// is written here; header blocks are h2Hpack.mjs's.
import * as net from "node:net"

export const frame = (type, flags, stream, payload = Buffer.alloc(0)) => {
  const header = Buffer.alloc(9)
  header.writeUIntBE(payload.length, 0, 3)
  header[3] = type
  header[4] = flags
  header.writeUInt32BE(stream, 5)
  return Buffer.concat([header, payload])
}

export const u32 = (value) => {
  const bytes = Buffer.alloc(4)
  bytes.writeUInt32BE(value)
  return bytes
}

/** What every HTTP/2 connection opens with, before the client's SETTINGS. */
export const clientMagic = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")

// A large window, so that the server's answers never wait on our flow control; no HPACK dynamic
// table (SETTINGS_HEADER_TABLE_SIZE 0), so that every :status arrives readable.
export const preface = Buffer.concat([
  clientMagic,
  frame(4, 0, 0, Buffer.from([0, 4, ...u32(1 << 24), 0, 1, ...u32(0)])),
  frame(8, 0, 0, u32(1 << 30))
])

/** Reads frames off a socket: calls `onFrame(type, flags, stream, payload)` for each. */
export const frameReader = (socket, onFrame) => {
  let pending = Buffer.alloc(0)
  socket.on("data", (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
    while (pending.length >= 9) {
      const length = pending.readUIntBE(0, 3)
      if (pending.length < 9 + length) break
      onFrame(pending[3], pending[4], pending.readUInt32BE(5) & 0x7fffffff, pending.subarray(9, 9 + length))
      pending = pending.subarray(9 + length)
    }
  })
}

/**
 * A connection to `target` (a URL) from `localAddress` (optional): sends the preface (unless
 * `prefaceLater`: then the caller does), answers the server's SETTINGS and PINGs as any client
 * must, notes its GOAWAY, whether the server sent anything at all, and calls `onFrame` for every
 * frame; `pinged` waits on its PING acks.
 */
export const connection = (target, localAddress, onFrame = () => {}, prefaceLater = false) => {
  const state = { goaway: undefined, closed: false, heard: false, socket: undefined, pingAcks: [] }
  const socket = net.connect({ port: Number(target.port), host: target.hostname, ...(localAddress ? { localAddress } : {}) }, () =>
    prefaceLater || socket.write(preface))
  state.socket = socket
  socket.setNoDelay(true)
  socket.on("error", () => {})
  socket.on("close", () => (state.closed = true))
  frameReader(socket, (type, flags, stream, payload) => {
    state.heard = true
    if (type === 4 && !(flags & 1) && !socket.destroyed) socket.write(frame(4, 1, 0))
    if (type === 6 && !(flags & 1) && !socket.destroyed) socket.write(frame(6, 1, 0, payload))
    if (type === 6 && flags & 1) for (const waiter of state.pingAcks.splice(0)) waiter()
    if (type === 7 && state.goaway === undefined) {
      state.goaway = { lastStreamId: payload.readUInt32BE(0) & 0x7fffffff, code: payload.readUInt32BE(4) }
    }
    onFrame(type, flags, stream, payload)
  })
  return state
}

/** A PING and its ACK; resolves false if the connection closes first. */
export const pinged = (state) =>
  new Promise((resolve) => {
    if (state.closed) return resolve(false)
    state.pingAcks.push(() => resolve(true))
    state.socket.once("close", () => resolve(false))
    state.socket.write(frame(6, 0, 0, Buffer.alloc(8)))
  })
