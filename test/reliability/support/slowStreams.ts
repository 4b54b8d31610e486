import * as http2 from "node:http2"
import * as net from "node:net"

/** What became of one HTTP/2 request. */
export interface StreamOutcome {
  readonly status: number | undefined
  /** Response headers and trailers together (gRPC's status may be in either). */
  readonly fields: Readonly<Record<string, string>>
  readonly body: Buffer
  /** Milliseconds from the request to its response headers; undefined when none came. */
  readonly answeredAfter: number | undefined
  /** Milliseconds from the request until the stream closed (or was given up). */
  readonly closedAfter: number
  /** The RST_STREAM code the stream closed with (0 NO_ERROR, 7 REFUSED_STREAM, 8 CANCEL). */
  readonly rstCode: number | undefined
  /** True when the stream was still open after `giveUpAfter`. */
  readonly gaveUp: boolean
}

const advertised = new WeakMap<http2.ClientHttp2Session, Promise<http2.Settings>>()

/** The SETTINGS the server sent on `session` (made by `h2Session`). */
export const serverSettings = (session: http2.ClientHttp2Session) => advertised.get(session)!

/**
 * A cleartext HTTP/2 session (prior knowledge), once connected: possibly before the server's
 * SETTINGS arrive, so requests made at once are sent without regard to its limits.
 */
export const h2Session = (url: string) =>
  new Promise<http2.ClientHttp2Session>((resolve, reject) => {
    const session = http2.connect(url)
    advertised.set(session, new Promise((settings) => session.once("remoteSettings", settings)))
    session.on("error", () => {})
    session.once("error", reject)
    session.once("connect", () => resolve(session))
  })

/** Resolves when `session` has closed, or with false after `millis`. */
export const sessionClosed = (session: http2.ClientHttp2Session, millis: number) =>
  new Promise<boolean>((resolve) => {
    if (session.closed || session.destroyed) return resolve(true)
    const timer = setTimeout(() => resolve(false), millis)
    session.once("close", () => {
      clearTimeout(timer)
      resolve(true)
    })
  })

/**
 * A request whose body never ends: `first`, then one byte every `everyMillis` for as long as the
 * stream is open. Given up (the stream destroyed) after `giveUpAfter` ms, so that a server that
 * never answers fails the test instead of hanging it.
 */
export const neverEndingRequest = (
  session: http2.ClientHttp2Session,
  headers: http2.OutgoingHttpHeaders,
  options: { readonly first?: Uint8Array | string; readonly everyMillis?: number; readonly giveUpAfter: number }
) =>
  new Promise<StreamOutcome>((resolve) => {
    const started = Date.now()
    const stream = session.request({ ":method": "POST", ...headers })
    let status: number | undefined
    let answeredAfter: number | undefined
    let fields: Record<string, string> = {}
    let gaveUp = false
    const chunks: Array<Buffer> = []
    const record = (incoming: http2.IncomingHttpHeaders) => {
      for (const [name, value] of Object.entries(incoming)) if (value !== undefined) fields[name] = String(value)
    }
    stream.on("response", (incoming) => {
      answeredAfter = Date.now() - started
      status = Number(incoming[":status"])
      record(incoming)
    })
    stream.on("trailers", record)
    stream.on("data", (chunk: Buffer) => chunks.push(chunk))
    stream.on("error", () => {})
    if (options.first !== undefined) stream.write(options.first)
    const dribble = setInterval(() => {
      if (!stream.closed && !stream.destroyed) stream.write("a")
    }, options.everyMillis ?? 100)
    const giveUp = setTimeout(() => {
      gaveUp = true
      stream.destroy()
    }, options.giveUpAfter)
    stream.once("close", () => {
      clearInterval(dribble)
      clearTimeout(giveUp)
      resolve({
        status,
        fields,
        body: Buffer.concat(chunks),
        answeredAfter,
        closedAfter: Date.now() - started,
        rstCode: gaveUp ? undefined : stream.rstCode,
        gaveUp
      })
    })
  })

/**
 * `GET /healthz` on a new HTTP/1.1 connection: its status, or undefined when the connection was
 * closed without an answer (a listener with every place busy, or this address at its share, closes
 * new ones on arrival).
 */
export const healthzOnNewConnection = (url: string, waitMillis = 2_000) =>
  new Promise<number | undefined>((resolve) => {
    const target = new URL(url)
    const socket = net.connect(Number(target.port), target.hostname, () =>
      socket.write(`GET /healthz HTTP/1.1\r\nhost: ${target.host}\r\nconnection: close\r\n\r\n`))
    let received = ""
    const done = () => {
      clearTimeout(timer)
      socket.destroy()
      const status = /^HTTP\/1\.1 (\d{3})/.exec(received)?.[1]
      resolve(status === undefined ? undefined : Number(status))
    }
    const timer = setTimeout(done, waitMillis)
    socket.setEncoding("latin1")
    socket.on("data", (text: string) => received += text)
    socket.on("close", done)
    socket.on("error", done)
  })
