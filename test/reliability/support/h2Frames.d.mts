// The types of h2Frames.mjs, for the tests that write HTTP/2 frames themselves.
import type { Socket } from "node:net"

export type OnFrame = (type: number, flags: number, stream: number, payload: Buffer) => void

/** A frame: its 9-octet header (length, `type`, `flags`, `stream`), then `payload`. */
export declare const frame: (type: number, flags: number, stream: number, payload?: Buffer) => Buffer
export declare const u32: (value: number) => Buffer
export declare const clientMagic: Buffer
export declare const preface: Buffer
export declare const frameReader: (socket: Socket, onFrame: OnFrame) => void

export interface Connection {
  goaway: { readonly lastStreamId: number; readonly code: number } | undefined
  closed: boolean
  heard: boolean
  readonly socket: Socket
}
export declare const connection: (target: URL, localAddress?: string, onFrame?: OnFrame, prefaceLater?: boolean) => Connection
export declare const pinged: (state: Connection) => Promise<boolean>
