import { FiberRef } from "effect"

/**
 * Bounds on the shape of a JSON request body, checked before it is parsed (JSON_MAX_DEPTH,
 * JSON_MAX_VALUES). One request of a megabyte of JSON — tens of thousands of keys, or brackets
 * nested hundreds of thousands deep — kept the event loop, and with it every port of the process,
 * busy in `JSON.parse` and in what walks its result (key renaming, schema decoding). No request of
 * these APIs comes near either bound (the shapes, their times and the largest request:
 * docs/reliability.md §2g).
 */
export interface JsonBounds {
  /** Objects and arrays open at once (the body's own object is level 1). */
  readonly maxDepth: number
  /** Values inside the body: each object member and each array element, at any depth, counted together. */
  readonly maxValues: number
}

export const unboundedJson: JsonBounds = { maxDepth: Number.POSITIVE_INFINITY, maxValues: Number.POSITIVE_INFINITY }

/**
 * The bounds of the port being built, for the body readers the platform runs (REST, `/rpc`),
 * which take them as they are built: the port sets it around building them. Unbounded unless set.
 */
export const CurrentJsonBounds = FiberRef.unsafeMake<JsonBounds>(unboundedJson)

/**
 * What in `bytes`, read as JSON, breaks `bounds`, as a message for the caller; undefined when
 * nothing does. One pass over the bytes, no allocation, stopping at the first bound broken: a
 * small part of what parsing such a body costs (both: docs/reliability.md §2g). It does not check
 * that the text is JSON (the parser that follows does); it only counts what JSON would make of it.
 * UTF-8 needs no decoding here: every byte of a multi-byte character is 0x80 or above, never one
 * of the ASCII bytes counted.
 */
export const jsonBoundsBroken = (bytes: Uint8Array, bounds: JsonBounds): string | undefined => {
  const { maxDepth, maxValues } = bounds
  let depth = 0
  let values = 0
  let inString = false
  // Just after `{` or `[`: the next token, unless it closes the container, is its first value.
  let opened = false
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!
    if (inString) {
      if (byte === 0x5c) i++ // a backslash: the byte after it is escaped
      else if (byte === 0x22) inString = false
      continue
    }
    // A switch on the byte rather than sets: this loop runs once per byte of the body.
    switch (byte) {
      case 0x20: // space, tab, line feed, carriage return
      case 0x09:
      case 0x0a:
      case 0x0d:
        continue
      case 0x7d: // } ]
      case 0x5d:
        opened = false
        // Never below 0: a stray closer must not buy credit for deeper nesting after it.
        if (depth > 0) depth--
        continue
    }
    if (opened) {
      opened = false
      values++
    }
    switch (byte) {
      case 0x22: // "
        inString = true
        break
      case 0x2c: // ,
        if (depth > 0) values++
        break
      case 0x7b: // { [
      case 0x5b:
        if (++depth > maxDepth) {
          return `the JSON nests objects and arrays more than ${maxDepth} deep; at most ${maxDepth} levels are allowed`
        }
        opened = true
    }
    if (values > maxValues) {
      return `the JSON holds more than ${maxValues} values (object members and array elements); at most ${maxValues} are allowed`
    }
  }
  return undefined
}
