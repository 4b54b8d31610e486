/**
 * google.protobuf.Timestamp <-> RFC 3339 for the test clients, written independently of the
 * services' own conversion so that the end-to-end tests check it rather than reuse it.
 */

/** A google.protobuf.Timestamp as proto-loader hands it over (seconds as a string with `longs: String`). */
export interface TimestampValue {
  readonly seconds: string
  readonly nanos: number
}

const rfc3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/

/** Parses an RFC 3339 timestamp (any offset, up to nanoseconds) into seconds and nanos since the epoch. */
export const timestampFromRfc3339 = (text: string): TimestampValue => {
  const match = rfc3339.exec(text)
  if (match === null) throw new TypeError(`not an RFC 3339 timestamp: ${JSON.stringify(text)}`)
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number
  ]
  const date = new Date(0)
  // setUTCFullYear, unlike Date.UTC, does not map years 0-99 to 1900-1999.
  date.setUTCFullYear(year, month - 1, day)
  date.setUTCHours(hour, minute, second, 0)
  if (
    date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day ||
    date.getUTCHours() !== hour || date.getUTCMinutes() !== minute || date.getUTCSeconds() !== second
  ) {
    throw new TypeError(`not a valid date and time: ${JSON.stringify(text)}`)
  }
  let seconds = date.getTime() / 1000
  if (match[8] === undefined) {
    const sign = match[9] === "-" ? -1 : 1
    seconds -= sign * (Number(match[10]) * 3600 + Number(match[11]) * 60)
  }
  // The fraction only adds to the (floored) whole second, so dates before 1970 come out right:
  // 1969-12-31T23:59:59.5Z is seconds -1, nanos 500000000.
  const nanos = match[7] === undefined ? 0 : Number(match[7].padEnd(9, "0"))
  return { seconds: String(seconds), nanos }
}

/** Formats a Timestamp as RFC 3339 in UTC: `Z`, fraction only when non-zero, trailing zeros trimmed. */
export const rfc3339FromTimestamp = (timestamp: { readonly seconds: unknown; readonly nanos: unknown }): string => {
  let seconds = Number(timestamp.seconds ?? 0)
  let nanos = Number(timestamp.nanos ?? 0)
  if (!Number.isSafeInteger(seconds) || !Number.isInteger(nanos)) {
    throw new TypeError(`not a Timestamp: ${JSON.stringify(timestamp)}`)
  }
  // Normalise so 0 <= nanos < 1e9 (a well-formed Timestamp already is).
  seconds += Math.floor(nanos / 1e9)
  nanos = ((nanos % 1e9) + 1e9) % 1e9
  const whole = new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, "")
  const fraction = nanos === 0 ? "" : `.${String(nanos).padStart(9, "0").replace(/0+$/, "")}`
  return `${whole}${fraction}Z`
}
