/**
 * Text as the caller sent it, or nothing: Node's Buffer decoding (and a lenient TextDecoder) turn
 * bytes that are not UTF-8 into U+FFFD, and the caller's data would be stored changed without a
 * word. The JSON styles of the edge (REST, GraphQL, `/rpc`) read their bodies through this.
 */

// ignoreBOM keeps a leading BOM in the text, as Buffer decoding did: JSON.parse refuses it.
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

/** The bytes as UTF-8 text, or undefined when they are not UTF-8. */
export const utf8Text = (bytes: Uint8Array): string | undefined => {
  try {
    return utf8.decode(bytes)
  } catch {
    return undefined
  }
}

/**
 * Whether a Content-Type names a charset other than UTF-8. JSON is UTF-8 (RFC 8259 §8.1), so such
 * a body is refused with 415 rather than read as UTF-8; `utf8` is a common spelling of the same.
 */
export const namesOtherCharset = (contentType: string | undefined): boolean => {
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(contentType ?? "")?.[1]?.toLowerCase()
  return charset !== undefined && charset !== "utf-8" && charset !== "utf8"
}
