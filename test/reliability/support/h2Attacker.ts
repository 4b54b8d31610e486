import { fileURLToPath } from "node:url"
import { startJsonLinesChild } from "../../../bench/JsonLinesChild.js"

/*
 * The raw-frame HTTP/2 attacker (h2RawAttacker.mjs) as a child process: its frames are written by
 * another event loop than the server's and the test's, as a real attacker's would be.
 */

const script = fileURLToPath(new URL("./h2RawAttacker.mjs", import.meta.url))

export interface AttackOptions {
  readonly mode: "reset" | "slowBody"
  readonly url: string
  readonly connections: number
  /** slowBody: streams per connection. */
  readonly streams?: number
  readonly method?: string
  readonly path?: string
  readonly everyMillis?: number
  /** reset: streams per connection at most, and whether to reconnect after GOAWAY. */
  readonly maxStreams?: number
  readonly reconnect?: boolean
  /** reset: streams per write; on GOAWAY, leave the old connection open and unread, and after the attack report how many the server left open, for `lingerMillis`. */
  readonly batch?: number
  readonly leaveOpen?: boolean
  readonly lingerMillis?: number
  /** reset: headers HPACK-encoded as a client's encoder would (about 57 octets a stream), the preface with the first batch. */
  readonly compact?: boolean
  readonly together?: boolean
  readonly token?: string
  /** The attacker stops by itself after this long, whatever happens. */
  readonly maxMillis: number
}

/** A slow-body attack's streams by outcome ("open", "reset 8 after 503", "answered 404", ...). */
export interface SlowBodyReport {
  readonly streams: number
  readonly byOutcome: Readonly<Record<string, number>>
  readonly goawayCodes: ReadonlyArray<number>
}

export interface ResetSessionReport {
  readonly session: number
  readonly sent: number
  readonly goaway: { readonly code: number; readonly lastStreamId: number } | null
}

/** A `leaveOpen` attack's connections after it: how many the server had not closed, `afterMillis` after it stopped. */
export interface Lingered {
  readonly connections: number
  readonly open: number
  readonly afterMillis: number
}

export interface Attacker {
  /** Every JSON line the attacker has printed so far. */
  readonly lines: ReadonlyArray<any>
  /** Resolves with the first line (past or future) that `test` accepts, or undefined after `ceilingMillis`. */
  readonly waitFor: <A>(test: (line: any) => A | undefined, ceilingMillis: number) => Promise<A | undefined>
  /** Tells the attacker to stop and resolves with its final report. */
  readonly stop: () => Promise<any>
}

/** What h2SlowConnections.mjs is told: see that file. */
export interface SlowConnectionsOptions {
  readonly url: string
  readonly connections: number
  readonly localAddress?: string
  readonly stream?: boolean
  readonly everyMillis?: number
  readonly reconnect?: boolean
  readonly reconnectAfterMillis?: number
  readonly maxMillis: number
}

/** A progress line (or the final report, `done`) of h2SlowConnections.mjs. */
export interface SlowConnectionsReport {
  readonly open: number
  readonly settled: number
  readonly opened: number
  readonly endings: Readonly<Record<string, number>>
  readonly done?: true
}

const startChild = (script: string, options: object): Attacker => {
  const child = startJsonLinesChild(script, options)
  const stop = async () => {
    child.askToStop()
    const done = await child.waitFor((line) => (line.done === true ? line : undefined), 30_000)
    await child.stop(5_000)
    return done
  }
  return { lines: child.lines, waitFor: child.waitFor, stop }
}

export const startAttacker = (options: AttackOptions): Attacker => startChild(script, options)

export const startSlowConnections = (options: SlowConnectionsOptions): Attacker =>
  startChild(fileURLToPath(new URL("./h2SlowConnections.mjs", import.meta.url)), options)
