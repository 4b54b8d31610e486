/**
 * Correction 3, lenientUtf8: connect-es decodes JSON messages with a lenient TextDecoder and a
 * Connect GET's query with URLSearchParams, both of which turn bytes that are not UTF-8 into
 * U+FFFD: the caller's text would be stored changed without a word, while binary protobuf refuses
 * the same bytes. JSON messages are decoded strictly through the router's `jsonOptions.textDecoder`
 * (jsonReadOptions.ts); a GET's raw `message` parameter is checked before the router
 * (`getQueryRefusal` in ConnectNodeAdapter.ts). (connect-es drops a leading BOM, as its own decoder did; a charset other
 * than UTF-8 it already refuses with 415.)
 */

export const notUtf8 = "the request message is not valid UTF-8"

export const strictUtf8 = new TextDecoder("utf-8", { fatal: true })

/** `decodeURIComponent` refuses escapes that are not UTF-8 (a `%` that starts none is literal, as URLSearchParams reads it). */
export const isUtf8QueryValue = (raw: string): boolean => {
  try {
    decodeURIComponent(raw.replace(/\+/g, " ").replace(/%(?![0-9a-fA-F]{2})/g, "%25"))
    return true
  } catch {
    return false
  }
}

/** The raw `message` parameter of a query, if there is one. */
export const rawMessageParameter = (query: string): string | undefined => {
  for (const part of query.split("&")) {
    const equals = part.indexOf("=")
    const key = equals === -1 ? part : part.slice(0, equals)
    if (new URLSearchParams(`${key}=`).has("message")) return equals === -1 ? "" : part.slice(equals + 1)
  }
  return undefined
}
