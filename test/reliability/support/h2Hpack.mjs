// HPACK for the raw HTTP/2 attackers (h2RawAttacker.mjs, h2SlowConnections.mjs): header blocks
// written by hand, and the :status of a server's answer read back. Plain JavaScript, as they are.

// HPACK, literal fields without indexing and without Huffman: what any decoder must accept.
const literal = (name, value) => {
  if (name.length > 126 || value.length > 126) throw new Error(`field too long for this encoder: ${name}`)
  return Buffer.concat([Buffer.from([0x00, name.length]), Buffer.from(name), Buffer.from([value.length]), Buffer.from(value)])
}
export const literalBlock = (method, path, authority, token) =>
  Buffer.concat([
    literal(":method", method),
    literal(":scheme", "http"),
    literal(":path", path),
    literal(":authority", authority),
    ...(method === "GET" ? [] : [literal("content-type", "application/json")]),
    ...(token === undefined ? [] : [literal("authorization", `Bearer ${token}`)])
  ])

// With `compact`, headers as a client with an HPACK encoder sends them (a stream in about 57 octets
// instead of 127): `:method GET` and `:scheme http` from the static table, `:authority` indexed
// after the connection's first HEADERS, `:path` Huffman-coded. More streams fit one read.
const huffmanCodes = {
  "/": "011000", "-": "010110", o: "00111", r: "101100", g: "100110", s: "01000",
  0: "00000", 1: "00001", 2: "00010", 3: "011001", 4: "011010", 5: "011011", 6: "011100", 7: "011101",
  8: "011110", 9: "011111", a: "00011", b: "100011", c: "00100", d: "100100", e: "00101", f: "100101"
}
const huffman = (text) => {
  let bits = [...text].map((char) => huffmanCodes[char]).join("")
  bits += "1".repeat((8 - (bits.length % 8)) % 8)
  return Buffer.from(bits.match(/.{8}/g).map((byte) => parseInt(byte, 2)))
}
export const compactHeaderBlock = (path, first, authority) => {
  const value = huffman(path)
  const authorityField = first
    ? Buffer.concat([Buffer.from([0x41, authority.length]), Buffer.from(authority)])
    : Buffer.from([0xbe])
  return Buffer.concat([Buffer.from([0x82, 0x86]), authorityField, Buffer.from([0x04, 0x80 | value.length]), value])
}

// The Huffman codes of the digits (RFC 7541, Appendix B), enough to read a :status.
const huffmanDigits = [
  ["00000", "0"], ["00001", "1"], ["00010", "2"], ["011001", "3"], ["011010", "4"],
  ["011011", "5"], ["011100", "6"], ["011101", "7"], ["011110", "8"], ["011111", "9"]
]
const staticStatus = { 8: 200, 9: 204, 10: 206, 11: 304, 12: 400, 13: 404, 14: 500 }
/** The :status of a response's header block, which servers send first; undefined if unreadable. */
export const statusOf = (whole) => {
  // Dynamic table size updates (001xxxxx) may come first, as ours to 0 does once.
  let start = 0
  while (start < whole.length && (whole[start] & 0xe0) === 0x20) start++
  const block = whole.subarray(start)
  const first = block[0]
  if (first === undefined) return undefined
  if (first & 0x80) return staticStatus[first & 0x7f]
  const nameIndex = first & 0x40 ? first & 0x3f : first & 0x0f
  if (!(nameIndex >= 8 && nameIndex <= 14)) return undefined
  const length = block[1] & 0x7f
  const value = block.subarray(2, 2 + length)
  if (!(block[1] & 0x80)) return Number(value.toString("latin1"))
  let bits = [...value].map((byte) => byte.toString(2).padStart(8, "0")).join("")
  let digits = ""
  while (digits.length < 3) {
    const match = huffmanDigits.find(([code]) => bits.startsWith(code))
    if (match === undefined) return undefined
    digits += match[1]
    bits = bits.slice(match[0].length)
  }
  return Number(digits)
}
