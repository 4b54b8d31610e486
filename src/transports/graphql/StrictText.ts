import { utf8Text } from "../http/Utf8Text.js"

/*
 * Query strings read strictly: URLSearchParams turns bytes that are not UTF-8 into U+FFFD.
 */

const hexDigit = /^[0-9a-fA-F]{2}$/

/**
 * One name or value of a query string, decoded as URLSearchParams does (`+` is a space, `%XX` a
 * byte, a `%` not followed by two hex digits stays as written), or undefined when the bytes are not
 * UTF-8. A character above U+007F stands for the byte of its code: HTTP/1.1 refuses such bytes in
 * a request line, and node:http2 hands `:path` over as latin1.
 */
const component = (text: string): string | undefined => {
  const bytes = new Uint8Array(text.length)
  let length = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code === 0x25 && hexDigit.test(text.slice(i + 1, i + 3))) {
      bytes[length++] = parseInt(text.slice(i + 1, i + 3), 16)
      i += 2
    } else if (code > 0xff) {
      return undefined
    } else {
      bytes[length++] = code === 0x2b ? 0x20 : code
    }
  }
  return utf8Text(bytes.subarray(0, length))
}

/** Why a query string was refused: the parameter at fault, when its own name could be read. */
export interface NotUtf8 {
  readonly parameter: string | undefined
}

/** A query string's parameters in order, or the first one that is not UTF-8. */
export const strictSearchParams = (search: string): URLSearchParams | NotUtf8 => {
  const params = new URLSearchParams()
  for (const pair of search.split("&")) {
    if (pair === "") continue
    const equals = pair.indexOf("=")
    const name = component(equals === -1 ? pair : pair.slice(0, equals))
    const value = component(equals === -1 ? "" : pair.slice(equals + 1))
    if (name === undefined || value === undefined) return { parameter: name }
    params.append(name, value)
  }
  return params
}
