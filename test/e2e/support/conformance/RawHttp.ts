import * as http from "node:http"
import * as http2 from "node:http2"

export interface RawReply {
  readonly status: number
  readonly text: string
}

export interface RawRequest {
  readonly method: string
  /** Path and query. */
  readonly path: string
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string
}

/** A plain HTTP client over one version: node:http with keep-alive, or node:http2 with prior knowledge (one session per origin). */
export interface RawHttp {
  readonly send: (origin: string, request: RawRequest) => Promise<RawReply>
  readonly close: () => void
}

const timeoutMs = 30_000

export const http1 = (): RawHttp => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 })
  return {
    send: (origin, request) =>
      new Promise((resolve, reject) => {
        const sent = http.request(new URL(request.path, origin), {
          method: request.method,
          agent,
          headers: { ...request.headers, ...(request.body === undefined ? {} : { "content-length": Buffer.byteLength(request.body) }) },
          timeout: timeoutMs
        }, (response) => {
          const chunks: Array<Buffer> = []
          response.on("data", (chunk: Buffer) => chunks.push(chunk))
          response.on("end", () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }))
          response.on("error", reject)
        })
        sent.on("timeout", () => sent.destroy(new Error(`no answer in ${timeoutMs} ms`)))
        sent.on("error", reject)
        sent.end(request.body)
      }),
    close: () => agent.destroy()
  }
}

export const http2PriorKnowledge = (): RawHttp => {
  const sessions = new Map<string, http2.ClientHttp2Session>()
  const session = (origin: string) => {
    const open = sessions.get(origin)
    if (open !== undefined && !open.closed && !open.destroyed) return open
    const made = http2.connect(origin)
    made.on("error", () => sessions.delete(origin))
    made.on("close", () => sessions.delete(origin))
    sessions.set(origin, made)
    return made
  }
  return {
    send: (origin, request) =>
      new Promise((resolve, reject) => {
        const stream = session(origin).request({ ":method": request.method, ":path": request.path, ...request.headers })
        stream.setTimeout(timeoutMs, () => stream.close(http2.constants.NGHTTP2_CANCEL))
        let status = 0
        const chunks: Array<Buffer> = []
        stream.on("response", (headers) => (status = Number(headers[":status"])))
        stream.on("data", (chunk: Buffer) => chunks.push(chunk))
        stream.on("end", () => resolve({ status, text: Buffer.concat(chunks).toString("utf8") }))
        stream.on("error", reject)
        stream.on("close", () => status === 0 && reject(new Error(`stream closed with code ${stream.rstCode}`)))
        stream.end(request.body)
      }),
    close: () => sessions.forEach((open) => open.close())
  }
}

export const rawHttp = (protocol: "HTTP/1.1" | "HTTP/2"): RawHttp => (protocol === "HTTP/2" ? http2PriorKnowledge() : http1())

/** A body's JSON, or undefined when it is not JSON. */
export const jsonOf = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
