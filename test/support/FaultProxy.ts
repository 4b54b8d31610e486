import { Effect } from "effect"
import * as net from "node:net"

/**
 * A TCP proxy to the database that a test can stop and start: stopping it drops every open
 * connection and refuses new ones, as a database server that goes down does; starting it again
 * on the same port is the database coming back. The shared PostgreSQL server itself is never touched.
 */
export interface FaultProxy {
  readonly port: number
  readonly stop: () => Promise<void>
  readonly start: () => Promise<void>
}

export const faultProxy = (target: { readonly host: string; readonly port: number }) =>
  Effect.acquireRelease(
    Effect.promise(async (): Promise<FaultProxy & { readonly close: () => Promise<void> }> => {
      const sockets = new Set<net.Socket>()
      let server: net.Server | undefined
      let port = 0
      const listen = () =>
        new Promise<void>((resolve, reject) => {
          server = net.createServer((client) => {
            const upstream = net.connect(target.port, target.host)
            for (const socket of [client, upstream]) {
              sockets.add(socket)
              socket.on("close", () => sockets.delete(socket))
              socket.on("error", () => {
                client.destroy()
                upstream.destroy()
              })
            }
            client.pipe(upstream).pipe(client)
          })
          server.once("error", reject)
          server.listen(port, "127.0.0.1", () => {
            port = (server!.address() as net.AddressInfo).port
            resolve()
          })
        })
      const stop = () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy()
          server === undefined ? resolve() : server.close(() => resolve())
          server = undefined
        })
      await listen()
      return { port, stop, start: listen, close: stop }
    }),
    (proxy) => Effect.promise(proxy.close)
  )
