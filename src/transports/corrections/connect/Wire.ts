import type { UniversalServerResponse } from "@connectrpc/connect/protocol"
import { codeToString } from "@connectrpc/connect/protocol-connect"

/** What the corrections read off an answer or a request, in each protocol's own framing. */

export type Protocol = "grpc" | "grpc-web" | "connect-stream" | "connect"

export const protocolOf = (contentType: string): Protocol => {
  if (contentType.startsWith("application/grpc-web")) return "grpc-web"
  if (contentType.startsWith("application/grpc")) return "grpc"
  if (contentType.startsWith("application/connect+")) return "connect-stream"
  return "connect"
}

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

export const isAsyncIterable = (value: unknown): value is AsyncIterable<Uint8Array> =>
  typeof value === "object" && value !== null && Symbol.asyncIterator in value

export const parseJson = (bytes: Uint8Array): unknown => {
  try {
    return JSON.parse(Buffer.from(bytes).toString("utf8"))
  } catch {
    return undefined
  }
}

export const jsonBytes = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8")

export const percentDecoded = (value: string): string => {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}

export const headersOf = (init: UniversalServerResponse["header"]): Headers =>
  init instanceof Headers ? init : new Headers(init)

/** The single uncompressed envelope with `flags` that `chunk` consists of, if it is one. */
export const soleEnvelope = (chunk: Uint8Array, flags: number): Uint8Array | undefined => {
  if (chunk.length < 5 || chunk[0] !== flags) return undefined
  const length = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).readUInt32BE(1)
  return 5 + length === chunk.length ? chunk.subarray(5) : undefined
}

/** gRPC-Web carries its trailers as an envelope flagged 0x80: `name: value` lines. */
export const grpcWebTrailerFlag = 0x80

/** Connect streaming ends with an envelope flagged 0x02: `{"error": {...}}`. */
export const connectEndStreamFlag = 0x02

/** A gRPC status's name in Connect's words (`0` is `ok`). */
export const grpcCodeName = (status: string): string => (status === "0" ? "ok" : codeToString(Number(status)) ?? "unknown")

/** The status in a gRPC-Web trailer envelope; a message first means the call succeeded. */
export const grpcWebCode = (chunk: Uint8Array | undefined): string => {
  const data = chunk === undefined ? undefined : soleEnvelope(chunk, grpcWebTrailerFlag)
  if (data === undefined) return "ok"
  const status = /grpc-status:\s*(\d+)/i.exec(Buffer.from(data).toString("latin1"))
  return status === null ? "unknown" : grpcCodeName(status[1]!)
}

/** Takes the body's first chunk; `rest` yields the whole body again, that chunk replaced if `replace` gave one. */
export const firstChunk = async (body: AsyncIterable<Uint8Array>) => {
  const iterator = body[Symbol.asyncIterator]()
  const first = await iterator.next()
  return {
    first: first.done === true ? undefined : first.value,
    rest: (replace: Uint8Array | undefined): AsyncIterable<Uint8Array> => ({
      [Symbol.asyncIterator]: () => {
        let pending: IteratorResult<Uint8Array> | undefined = replace === undefined ? first : { done: false, value: replace }
        return {
          next: () => {
            if (pending === undefined) return iterator.next()
            const next = pending
            pending = undefined
            return Promise.resolve(next)
          },
          ...(iterator.throw === undefined ? {} : { throw: (error: unknown) => iterator.throw!(error) }),
          ...(iterator.return === undefined ? {} : { return: (value: unknown) => iterator.return!(value) })
        }
      }
    })
  }
}
