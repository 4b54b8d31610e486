import type { DescMessage } from "@bufbuild/protobuf"
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire"
import type { Compression } from "@connectrpc/connect/protocol"

/**
 * PROTOBUF_MAX_FIELDS: how many fields one binary request message may hold, its nested messages'
 * included, counted before protobuf-es decodes it.
 *
 * A megabyte of protobuf holds up to half a million two-byte fields. protobuf-es decodes them one
 * by one, keeping each unknown one as an object of its own (and decoding each repeat of a known
 * one), which kept the event loop — every port of the process — busy for the whole decode. No
 * request of these APIs comes near the bound (the times, and the largest request, a workflow:
 * docs/reliability.md §2g).
 *
 * connect-es decodes a request message inside its handler, with no hook between the bytes and
 * `fromBinary` (its binary read options are data only), so the count is made on the request body
 * on its way in: the bytes are passed on unchanged, and a message over the bound ends the body
 * with a ConnectError, which connect-es answers in the caller's protocol as it answers any error
 * of reading the request.
 */

/** Deeper than protobuf-es's own recursion limit (100) is its refusal to make, not ours. */
const maxNesting = 100

/** The message type of each field that holds messages (singly or repeated), by field number. */
const nestedTypes = new WeakMap<DescMessage, ReadonlyMap<number, DescMessage>>()
const nestedTypesOf = (message: DescMessage): ReadonlyMap<number, DescMessage> => {
  let types = nestedTypes.get(message)
  if (types === undefined) {
    const found = new Map<number, DescMessage>()
    for (const field of message.fields) {
      if (field.fieldKind === "message") found.set(field.number, field.message)
      else if (field.fieldKind === "list" && field.listKind === "message") found.set(field.number, field.message)
    }
    types = found
    nestedTypes.set(message, types)
  }
  return types
}

/** The refusal's message, the same wherever the bound is held. */
export const tooManyFieldsMessage = (maxFields: number) =>
  `the request message holds more than ${maxFields} fields (its nested messages' included); at most ${maxFields} are allowed`

/**
 * Whether `bytes`, read as `message`, holds more than `maxFields` fields: every tag counts, in the
 * message and in the nested messages of its known message fields. One pass that stops at the
 * bound. Bytes that are not protobuf count as within it: protobuf-es refuses them, as it would anyway.
 */
export const holdsMoreFields = (message: DescMessage, bytes: Uint8Array, maxFields: number): boolean => {
  // Every tag counted takes at least a byte of the message: no more can be read than it has bytes.
  if (bytes.byteLength <= maxFields) return false
  const reader = new BinaryReader(bytes)
  let left = maxFields
  const over = (type: DescMessage, end: number, nesting: number): boolean => {
    while (reader.pos < end) {
      const [number, wireType] = reader.tag()
      if (--left < 0) return true
      const nested = nestedTypesOf(type).get(number)
      if (nested !== undefined && wireType === WireType.LengthDelimited && nesting < maxNesting) {
        const length = reader.uint32()
        const nestedEnd = reader.pos + length
        if (nestedEnd > end) return false
        if (over(nested, nestedEnd, nesting + 1)) return true
      } else {
        reader.skip(wireType, number)
      }
    }
    return false
  }
  try {
    return over(message, bytes.byteLength, 0)
  } catch {
    return false
  }
}

export interface FieldBound {
  readonly message: DescMessage
  readonly maxFields: number
  /** What the request's messages are compressed with, if the caller named a compression we take. */
  readonly compression: Compression | undefined
  /** connect-es's own limit: past it the body is passed on unread, for connect-es to refuse. */
  readonly readMaxBytes: number
  /** The error the body ends with when a message holds too many fields. */
  readonly refusal: () => Error
}

const concat = (chunks: ReadonlyArray<Uint8Array>): Uint8Array =>
  chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)

/** A message as the caller sent it, decompressed when it says so; undefined when it cannot be (connect-es refuses it). */
const readable = async (bytes: Uint8Array, compressed: boolean, bound: FieldBound): Promise<Uint8Array | undefined> => {
  if (!compressed) return bytes
  if (bound.compression === undefined) return undefined
  try {
    return await bound.compression.decompress(bytes, bound.readMaxBytes)
  } catch {
    return undefined
  }
}

/** Ends the body with the refusal when the message holds too many fields; a promise only when it must be decompressed first. */
const check = (bytes: Uint8Array, compressed: boolean, bound: FieldBound): Promise<void> | undefined => {
  if (compressed) return checkDecompressed(bytes, bound)
  if (holdsMoreFields(bound.message, bytes, bound.maxFields)) throw bound.refusal()
  return undefined
}

const checkDecompressed = async (bytes: Uint8Array, bound: FieldBound): Promise<void> => {
  const message = await readable(bytes, true, bound)
  if (message !== undefined && holdsMoreFields(bound.message, message, bound.maxFields)) throw bound.refusal()
}

/** A Connect unary body: one message, the whole body (compressed as a whole when `compressed`). */
export const unaryBodyBound = (body: AsyncIterable<Uint8Array>, compressed: boolean, bound: FieldBound): AsyncIterable<Uint8Array> => ({
  async *[Symbol.asyncIterator]() {
    const iterator = body[Symbol.asyncIterator]()
    const held: Array<Uint8Array> = []
    let size = 0
    for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) {
      held.push(next.value)
      size += next.value.byteLength
      if (size > bound.readMaxBytes) {
        yield* held
        for (let rest = await iterator.next(); rest.done !== true; rest = await iterator.next()) yield rest.value
        return
      }
    }
    const checked = check(concat(held), compressed, bound)
    if (checked !== undefined) await checked
    yield* held
  }
})

const envelopeHeader = 5
const compressedFlag = 0x01

/**
 * An enveloped body (gRPC, gRPC-Web, Connect streams): each message in a 5-byte envelope (flags,
 * length). Each chunk is passed on once every envelope it completes has been checked, so
 * connect-es never holds a whole message over the bound. An iterator over the body's own, not an
 * async generator: a chunk costs one promise more than the body's, and a message too short to hold
 * more than `maxFields` fields (a tag takes a byte) is not copied out to be counted.
 */
export const envelopedBodyBound = (body: AsyncIterable<Uint8Array>, bound: FieldBound): AsyncIterable<Uint8Array> => ({
  [Symbol.asyncIterator]: (): AsyncIterator<Uint8Array> => {
    const iterator = body[Symbol.asyncIterator]()
    const envelopes = envelopeChecks(bound)
    let ended = false
    const end = (error: unknown): never => {
      ended = true
      void iterator.return?.()?.catch(() => undefined)
      throw error
    }
    return {
      next: () => {
        if (ended) return Promise.resolve({ done: true, value: undefined })
        return iterator.next().then((result) => {
          if (result.done === true) return result
          let checked: Promise<void> | undefined
          try {
            checked = envelopes(result.value)
          } catch (error) {
            return end(error)
          }
          return checked === undefined ? result : checked.then(() => result, end)
        })
      },
      return: (value?: unknown) => {
        ended = true
        return iterator.return?.(value) ?? Promise.resolve({ done: true, value: undefined })
      },
      // As a generator's `for await` does when the error is thrown into it: the body is closed, the error is the answer.
      throw: (error?: unknown) => {
        ended = true
        void iterator.return?.()?.catch(() => undefined)
        return Promise.reject(error)
      }
    }
  }
})

/** Takes the body's chunks in turn and checks each envelope they complete; a promise only while one is decompressed. */
const envelopeChecks = (bound: FieldBound) => {
  let held: Array<Uint8Array> = []
  let size = 0
  let unchecked = false
  const drain = (): Promise<void> | undefined => {
    while (size >= envelopeHeader) {
      if (held[0]!.byteLength < envelopeHeader) held = [concat(held)]
      const head = held[0]!
      const flags = head[0]!
      // The head holds its five bytes (size >= envelopeHeader above): `?? 0` never applies.
      const length = (((head[1] ?? 0) << 24) | ((head[2] ?? 0) << 16) | ((head[3] ?? 0) << 8) | (head[4] ?? 0)) >>> 0
      if (length > bound.readMaxBytes) {
        unchecked = true // connect-es refuses it by its length
        return undefined
      }
      if (size < envelopeHeader + length) return undefined
      const compressed = (flags & compressedFlag) !== 0
      const bytes = concat(held)
      const checked = compressed || length > bound.maxFields
        ? check(bytes.subarray(envelopeHeader, envelopeHeader + length), compressed, bound)
        : undefined
      const restAt = envelopeHeader + length
      held = restAt === bytes.byteLength ? [] : [bytes.subarray(restAt)]
      size = bytes.byteLength - restAt
      if (checked !== undefined) return checked.then(drain)
    }
    return undefined
  }
  return (chunk: Uint8Array): Promise<void> | undefined => {
    if (unchecked) return undefined
    held.push(chunk)
    size += chunk.byteLength
    return drain()
  }
}
