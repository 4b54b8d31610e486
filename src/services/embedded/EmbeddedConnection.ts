import type { PGlite } from "@electric-sql/pglite"
import { Duplex } from "node:stream"

/**
 * Connections to PGlite in this process, for `pg`'s `stream` option (its public way to give a
 * client a connection of the caller's own): a Duplex whose writes PGlite runs through its
 * wire-protocol entry (`execProtocolRaw`) and whose reads are PGlite's replies. PGlite is one
 * session, so one connection is open at a time; a second is refused, as PGLiteSocketServer
 * refused it with its one connection.
 *
 * Why not PGLiteSocketServer on a loopback port: each round trip went through four socket calls
 * and the event loop, and the server ran each protocol message on its own through a queue of
 * promises; here what `pg` writes in one turn of the event loop (a statement's Parse, Bind,
 * Describe, Execute, Sync) is run by PGlite in one call (docs/benchmarks.md §8). And no port is
 * open to other users of the machine, who could reach the database on it without a password.
 */
export const embeddedConnections = (db: PGlite): () => Duplex => {
  const session: Session = { db, schedule: scheduler(), open: undefined, broken: undefined }
  return () => {
    const connection = new EmbeddedConnection(session)
    const refusal = session.broken ?? (session.open !== undefined ? "the embedded database has one connection, and it is open" : undefined)
    if (refusal !== undefined) process.nextTick(() => connection.destroy(new Error(refusal)))
    else session.open = connection
    return connection
  }
}

interface Session {
  readonly db: PGlite
  /** Runs a connection's statements soon (see `scheduler`). */
  readonly schedule: (run: () => void) => void
  open: EmbeddedConnection | undefined
  /** Why no connection may open: a lost connection's transaction could not be rolled back. */
  broken: string | undefined
}

/** How long statements may be answered one after another before the event loop gets a turn. */
const turnMillis = 4

/**
 * Statements run after the turn that wrote them (`process.nextTick`), but at least every
 * `turnMillis` in the event loop's check phase instead (`setImmediate`). Every answer is
 * continued by promises and the next statement written at once, so a busy database answered
 * statement after statement without the loop ever reading a socket or running a timer, and some
 * calls waited seconds. Through `setImmediate` every time, the loop's turn per statement cost a
 * share of the calls a second. Every `turnMillis` bounds the wait and keeps the rate (the figures
 * of all three: docs/benchmarks.md §8).
 */
const scheduler = () => {
  let turnBegan = performance.now()
  return (run: () => void) => {
    if (performance.now() - turnBegan < turnMillis) return process.nextTick(run)
    setImmediate(() => {
      turnBegan = performance.now()
      run()
    })
  }
}

class EmbeddedConnection extends Duplex {
  private pending: Array<Buffer> = []
  private scheduled = false
  /** `pg` has ended its side: what it sent and what PGlite would answer are no longer wanted. */
  private ended = false

  constructor(private readonly session: Session) {
    super()
  }

  // What pg calls on a socket, meaningless in one process (nothing here holds the event loop open).
  setNoDelay() {
    return this
  }
  setKeepAlive() {
    return this
  }
  ref() {
    return this
  }
  unref() {
    return this
  }
  connect() {
    process.nextTick(() => this.emit("connect"))
    return this
  }

  override _read() {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void) {
    this.pending.push(chunk)
    // pg writes a statement's messages one by one in the same turn: they run together after it.
    if (!this.scheduled) {
      this.scheduled = true
      this.session.schedule(() => this.run())
    }
    callback()
  }

  private run() {
    this.scheduled = false
    const input = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending)
    this.pending = []
    const db = this.session.db
    // PGlite runs one call at a time; a call queued by a connection that has since ended or gone
    // is not run at all (its statements were never answered: after the ROLLBACK below they would
    // run outside the transaction they were sent in).
    db.runExclusive(async () => {
      if (this.destroyed || this.ended) return
      if (this.session.broken !== undefined) throw new Error(this.session.broken)
      const reply = await db.execProtocolRaw(input)
      // `pg` may have ended its side while PGlite ran: nothing is pushed after the end.
      if (reply.length > 0 && !this.ended && !this.destroyed) this.push(Buffer.from(reply.buffer, reply.byteOffset, reply.byteLength))
    }).catch((error: unknown) => this.destroy(error instanceof Error ? error : new Error(String(error))))
  }

  override _final(callback: (error?: Error | null) => void) {
    this.ended = true
    this.push(null)
    callback()
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void) {
    const session = this.session
    if (session.open !== this) return callback(error)
    session.open = undefined
    const db = session.db
    // A transaction left open by a connection that went away is rolled back, as a server does:
    // queued now, so after whatever PGlite is running and before the next connection's first
    // statement. Should that fail, the next connection would write inside the lost one's
    // transaction: no statement runs again (`broken`).
    db.runExclusive(async () => {
      if (!db.closed && db.isInTransaction()) await db.execProtocolRaw(rollback)
      if (!db.closed && db.isInTransaction()) throw new Error("still in a transaction after ROLLBACK")
    }).catch((failure: unknown) => {
      session.broken = `the embedded database could not roll back a lost connection's transaction: ${failure instanceof Error ? failure.message : String(failure)}`
    })
    callback(error)
  }
}

/** The protocol's simple Query message for `ROLLBACK`: its tag, its length, the text ending in a zero byte. */
const rollback = (() => {
  const text = Buffer.from("ROLLBACK\0")
  const message = Buffer.alloc(5 + text.length)
  message.write("Q", 0)
  message.writeInt32BE(4 + text.length, 1)
  text.copy(message, 5)
  return message
})()
