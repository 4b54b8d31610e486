// Many HTTP/2 connections that each hold a place and do as little as they can, from one address,
// run as a child process (node h2SlowConnections.mjs '<options as JSON>'):
//
//   `connections` connections from `localAddress` (127.0.0.2, say) to `url`; each sends the
//   preface and, with `stream`, one PUT whose body comes a byte every `everyMillis` and never
//   ends; without it, nothing more (preface only). Once two PINGs in a row are answered, the
//   server has taken what the connection sent: it is "settled". With `reconnect`, a connection the
//   server closes is opened again (after `reconnectAfterMillis`, 0 unless given), as the attack of
//   issue 61 did.
//
// Bounded, and stopped, as childRun.mjs says. How each connection ended is counted by kind:
// "goaway <code> last <id>" (the server's GOAWAY, then the close), "refused" (closed before the
// server sent a byte), "closed" (anything else).
import { options, report, started, stopped, stopping, target } from "./childRun.mjs"
import { connection, frame, pinged } from "./h2Frames.mjs"
import { literalBlock } from "./h2Hpack.mjs"

const live = new Set()
const endings = {}
let opened = 0

const endingOf = (state) =>
  state.goaway !== undefined ? `goaway ${state.goaway.code} last ${state.goaway.lastStreamId}` : state.heard ? "closed" : "refused"

const hold = async () => {
  const state = connection(target, options.localAddress, (type, _flags, stream) => {
    if (type === 3 && stream === 1) state.reset = true
  })
  opened++
  live.add(state)
  await new Promise((resolve) => state.socket.once("connect", resolve).once("close", resolve))
  if (options.stream === true && !state.closed) {
    state.socket.write(Buffer.concat([
      frame(1, 0x4, 1, literalBlock("PUT", `/orgs/${crypto.randomUUID()}`, target.host, options.token)),
      frame(0, 0, 1, Buffer.from("{"))
    ]))
  }
  // The second PING is read after the server has handled the first read, stream included.
  if ((await pinged(state)) && (await pinged(state))) state.settled = true
  const dribble = setInterval(() => {
    if (options.stream === true && !state.reset && !state.socket.destroyed) state.socket.write(frame(0, 0, 1, Buffer.from(" ")))
  }, options.everyMillis ?? 5_000)
  await Promise.race([stopping, new Promise((resolve) => (state.closed ? resolve() : state.socket.once("close", resolve)))])
  clearInterval(dribble)
  live.delete(state)
  if (state.closed) {
    const ending = endingOf(state)
    endings[ending] = (endings[ending] ?? 0) + 1
  }
  state.socket.destroy()
}

const counts = () => {
  const open = [...live].filter((state) => !state.closed)
  return { open: open.length, settled: open.filter((state) => state.settled).length, opened, endings: { ...endings } }
}

const slot = async () => {
  await hold()
  while (options.reconnect === true && !stopped) {
    if (options.reconnectAfterMillis > 0) await Promise.race([stopping, new Promise((resolve) => setTimeout(resolve, options.reconnectAfterMillis))])
    if (!stopped) await hold()
  }
}

// As they were when told to stop, before the connections are dropped.
const final = stopping.then(() => ({ done: true, millis: Date.now() - started, ...counts() }))
const progress = setInterval(() => report({ millis: Date.now() - started, ...counts() }), 250)
await Promise.all(Array.from({ length: options.connections ?? 8 }, slot))
clearInterval(progress)
report(await final)
process.exit(0)
