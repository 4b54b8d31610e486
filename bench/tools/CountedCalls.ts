import { randomUUID } from "node:crypto"
import * as http from "node:http"
import * as http2 from "node:http2"
import { type Scenario, withId } from "../Scenarios.js"

/**
 * The calls bench/tools/instructionsPerCall.ts makes of one cell: `concurrency` callers, each on a
 * keep-alive connection of its own over HTTP/1.1, or streams of one HTTP/2 session for gRPC, as a
 * gRPC client's calls are. A call with a status other than 200 (or a gRPC status other than 0)
 * fails; a GraphQL error arrives with 200 and is not looked for: the call is checked once before.
 */
export const callers = (base: string, s: Scenario, concurrency: number) => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency })
  let session: http2.ClientHttp2Session | undefined
  const callHttp1 = (made: Scenario): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const request = http.request(`${base}${made.path}`, { agent, method: made.method, headers: made.headers }, (response) => {
        response.resume()
        response.on("end", () => (response.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${response.statusCode}`))))
      })
      // A kept-alive socket the server closed as idle just as the request went out (Node's
      // documented race): the server read nothing of it, so it is sent again on another socket.
      // Under valgrind a server whose keep-alive timeout is Node's 5 s ((h), the platform's
      // default server) passes it between two reads of a socket at c64.
      request.on("error", (error: NodeJS.ErrnoException) =>
        request.reusedSocket && error.code === "ECONNRESET" ? callHttp1(made).then(resolve, reject) : reject(error)
      )
      request.end(made.method === "GET" ? undefined : made.body)
    })
  // A new session when the last one failed (the server not yet up).
  const callHttp2 = (made: Scenario) =>
    new Promise<void>((resolve, reject) => {
      if (session === undefined || session.destroyed || session.closed) {
        session = http2.connect(base)
        session.on("error", () => undefined)
      }
      const stream = session.request({ ":method": made.method, ":path": made.path, ...made.headers })
      let status: number | undefined
      let grpcStatus: unknown
      stream.on("response", (headers) => {
        status = headers[":status"]
        grpcStatus = headers["grpc-status"]
      })
      stream.on("trailers", (trailers) => (grpcStatus = trailers["grpc-status"]))
      stream.resume()
      stream.on("end", () => (status === 200 && grpcStatus === "0" ? resolve() : reject(new Error(`HTTP ${status}, grpc-status ${String(grpcStatus)}`))))
      stream.on("error", reject)
      stream.end(made.body)
    })
  /** One call: a create of a new id each time (a scenario with `freshId`), so every call does the same work. */
  const call = () => {
    const made = s.freshId ? withId(s, randomUUID()) : s
    return made.style === "grpc" ? callHttp2(made) : callHttp1(made)
  }
  /** `n` calls, `concurrency` at a time; the first failure stops every caller. */
  const callMany = async (n: number) => {
    let left = n
    const caller = async () => {
      while (left > 0) {
        left--
        await call().catch((error: unknown) => {
          left = 0
          throw error
        })
      }
    }
    await Promise.all(Array.from({ length: concurrency }, caller))
  }
  /**
   * One call on a connection of its own, closed when answered or after `millis`: true when it
   * answered 200. For the wait until a server is ready: a server may accept a connection before it
   * handles requests (HttpApiBuilder.serve attaches its handler after NodeHttpServer's layer has
   * listened, (h) builds its repositories and pool in between), and a request read in that gap is
   * never answered; made on a caller's keep-alive socket, it would hold that socket for good and
   * every call queued behind it (at c1, all of them).
   */
  const ready = (millis: number) =>
    new Promise<boolean>((resolve) => {
      const made = s.freshId ? withId(s, randomUUID()) : s
      if (made.style === "grpc") {
        const own = http2.connect(base)
        own.on("error", () => undefined)
        const stream = own.request({ ":method": made.method, ":path": made.path, ...made.headers })
        let ok = false
        const timer = setTimeout(() => own.destroy(), millis)
        // Refused (not yet listening) or cut: not ready, told by 'close' below.
        stream.on("error", () => undefined)
        stream.on("response", (headers) => (ok = headers[":status"] === 200))
        stream.on("trailers", (trailers) => (ok &&= trailers["grpc-status"] === "0"))
        stream.resume()
        stream.on("close", () => {
          clearTimeout(timer)
          own.close()
          resolve(ok)
        })
        stream.end(made.body)
        return
      }
      const request = http.request(`${base}${made.path}`, { agent: false, method: made.method, headers: made.headers }, (response) => {
        response.resume()
        response.on("end", () => resolve(response.statusCode === 200))
      })
      request.setTimeout(millis, () => request.destroy())
      request.on("close", () => resolve(false))
      request.on("error", () => resolve(false))
      request.end(made.method === "GET" ? undefined : made.body)
    })
  const close = () => {
    agent.destroy()
    session?.close()
  }
  return { call, callMany, ready, close }
}
