import { Effect } from "effect"
import * as net from "node:net"

/**
 * What happens to a COMMIT: passed on, or the connection cut around it. `cutAfterForward` is the
 * ambiguous commit: the server gets the COMMIT (and commits) but its answer never reaches the
 * client, which only sees the connection drop. `cutBeforeForward` drops the connection with the
 * COMMIT unsent: the server rolls back, and the client sees the very same drop.
 */
export type CommitMode = "pass" | "cutAfterForward" | "cutBeforeForward"

/**
 * A TCP proxy to PostgreSQL that reads the client's side of the protocol to find each COMMIT.
 * The shared PostgreSQL server itself is never touched.
 */
export interface CommitCutter {
  readonly port: number
  /** Cuts the next `count` COMMITs as `mode` says, then passes them again. */
  readonly cutNext: (count: number, mode: Exclude<CommitMode, "pass">) => void
  readonly pass: () => void
  /**
   * Cuts the next COMMIT after passing it on, as `cutAfterForward` does, and then takes the
   * database away: every other connection is dropped and new ones are refused until `up()`. No
   * retry can then ask whether that COMMIT took effect.
   */
  readonly cutThenDown: () => void
  readonly up: () => void
  readonly counts: () => { readonly seen: number; readonly cut: number }
}

// Startup-phase request codes (no type byte): a reply or a second startup packet follows them.
const sslRequest = 80877103
const gssEncRequest = 80877104

const isCommitText = (text: string) => /^\s*(commit|end)(\s+(work|transaction))?\s*;?\s*$/i.test(text)

/** A message's SQL when it carries one: a simple Query ('Q'), or the Parse ('P') of the extended protocol. */
const sqlOf = (type: string, body: Buffer): string | undefined => {
  if (type === "Q") return body.toString("utf8", 0, body.indexOf(0))
  if (type === "P") {
    const nameEnd = body.indexOf(0)
    return body.toString("utf8", nameEnd + 1, body.indexOf(0, nameEnd + 1))
  }
  return undefined
}

export const commitCutter = (target: { readonly host: string; readonly port: number }) =>
  Effect.acquireRelease(
    Effect.promise(async (): Promise<CommitCutter & { readonly close: () => Promise<void> }> => {
      const sockets = new Set<net.Socket>()
      let mode: Exclude<CommitMode, "pass"> = "cutAfterForward"
      let remaining = 0
      let downAfterCut = false
      let down = false
      let seen = 0
      let cut = 0
      /** What to do with the COMMIT just seen. */
      const decide = (): CommitMode => {
        seen++
        if (remaining === 0) return "pass"
        remaining--
        cut++
        return mode
      }

      const server = net.createServer((client) => {
        if (down) {
          client.destroy()
          return
        }
        const upstream = net.connect(target.port, target.host)
        for (const socket of [client, upstream]) {
          sockets.add(socket)
          socket.on("close", () => sockets.delete(socket))
          socket.on("error", () => {
            client.destroy()
            upstream.destroy()
          })
        }
        let answered = true
        upstream.on("data", (data) => {
          if (answered) client.write(data)
          // The server has answered the COMMIT the client will never see: it ran, so let it go.
          else upstream.end()
        })
        upstream.on("end", () => client.end())
        client.on("end", () => upstream.end())

        let pending = Buffer.alloc(0)
        let startup = true
        // An extended-protocol COMMIT runs at the Sync that follows its Parse: that is where to cut.
        let cutAtSync = false
        client.on("data", (data) => {
          pending = Buffer.concat([pending, data])
          const forward: Array<Buffer> = []
          const flush = () => forward.length > 0 && upstream.write(Buffer.concat(forward.splice(0)))
          while (true) {
            const header = startup ? 0 : 1
            if (pending.length < header + 4) break
            const size = header + pending.readInt32BE(header)
            if (pending.length < size) break
            const message = pending.subarray(0, size)
            pending = pending.subarray(size)
            if (startup) {
              const code = message.readInt32BE(4)
              // Still in the startup phase after these: the client sends its real startup packet next.
              startup = code === sslRequest || code === gssEncRequest
              forward.push(message)
              continue
            }
            const type = String.fromCharCode(message[0]!)
            const text = sqlOf(type, message.subarray(5))
            const how = text !== undefined && isCommitText(text) ? decide() : "pass"
            if (how === "cutBeforeForward") {
              client.destroy()
              upstream.destroy()
              return
            }
            forward.push(message)
            if (how === "cutAfterForward" && type === "P") cutAtSync = true
            if (how === "cutAfterForward" && type === "Q" || type === "S" && cutAtSync) {
              flush()
              answered = false
              client.destroy()
              if (downAfterCut) {
                // Everything but this COMMIT's own way to the server, which must stay to let it run.
                down = true
                downAfterCut = false
                for (const socket of sockets) if (socket !== upstream) socket.destroy()
              }
              return
            }
          }
          flush()
        })
      })
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject)
        server.listen(0, "127.0.0.1", () => resolve())
      })
      return {
        port: (server.address() as net.AddressInfo).port,
        cutNext: (count, how) => {
          mode = how
          remaining = count
        },
        pass: () => {
          remaining = 0
        },
        cutThenDown: () => {
          mode = "cutAfterForward"
          remaining = 1
          downAfterCut = true
        },
        up: () => {
          down = false
        },
        counts: () => ({ seen, cut }),
        close: () =>
          new Promise<void>((resolve) => {
            for (const socket of sockets) socket.destroy()
            server.close(() => resolve())
          })
      }
    }),
    (cutter) => Effect.promise(cutter.close)
  )
