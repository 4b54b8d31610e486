import { ParseResult, Schema } from "effect"

/**
 * A point in time as its canonical RFC 3339 UTC text: `2023-11-16T12:00:00Z`, with fractional
 * seconds only when non-zero and at most microseconds (PostgreSQL's precision).
 */
export const CanonicalTimestamp = Schema.String.pipe(Schema.brand("Timestamp"))
export type Timestamp = typeof CanonicalTimestamp.Type

const rfc3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/

const microsPerSecond = 1_000_000n
// Protobuf's Timestamp range, which every style must be able to carry.
const minMicros = -62_135_596_800n * microsPerSecond // 0001-01-01T00:00:00Z
const maxMicros = 253_402_300_800n * microsPerSecond - 1n // 9999-12-31T23:59:59.999999Z

const utcMillis = (y: number, mo: number, d: number, h: number, mi: number, s: number): number | undefined => {
  const date = new Date(0)
  date.setUTCFullYear(y, mo - 1, d) // unlike Date.UTC, keeps years 0-99 as written
  date.setUTCHours(h, mi, s, 0)
  const roundTrips = date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d &&
    date.getUTCHours() === h && date.getUTCMinutes() === mi && date.getUTCSeconds() === s
  return roundTrips ? date.getTime() : undefined
}

/** Microseconds since the Unix epoch; fractions finer than a microsecond are truncated. */
export const parseMicros = (text: string): bigint | undefined => {
  const m = rfc3339.exec(text)
  if (m === null) return undefined
  const [, y, mo, d, h, mi, s, frac, sign, oh, om] = m
  const millis = utcMillis(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s))
  if (millis === undefined || Number(oh ?? 0) > 23 || Number(om ?? 0) > 59) return undefined
  const fraction = BigInt((frac ?? "").padEnd(6, "0").slice(0, 6))
  const offsetMinutes = sign === undefined ? 0 : (sign === "-" ? -1 : 1) * (Number(oh) * 60 + Number(om))
  const micros = BigInt(millis) * 1000n + fraction - BigInt(offsetMinutes) * 60n * microsPerSecond
  return micros < minMicros || micros > maxMicros ? undefined : micros
}

export const fromMicros = (micros: bigint): Timestamp => {
  const fraction = ((micros % microsPerSecond) + microsPerSecond) % microsPerSecond
  const seconds = (micros - fraction) / microsPerSecond
  const whole = new Date(Number(seconds) * 1000).toISOString().slice(0, 19)
  const digits = fraction === 0n ? "" : "." + fraction.toString().padStart(6, "0").replace(/0+$/, "")
  return CanonicalTimestamp.make(`${whole}${digits}Z`)
}

/** A canonical timestamp's microseconds: its whole seconds as ISO 8601 UTC (which Date reads for years 0001 to 9999), then its fraction. */
export const toMicros = (t: Timestamp): bigint => {
  const [whole = "", fraction = ""] = t.slice(0, -1).split(".")
  return BigInt(Date.parse(`${whole}Z`)) * 1000n + BigInt(fraction.padEnd(6, "0"))
}

/** Protobuf well-known Timestamp parts. */
export const fromSecondsNanos = (seconds: bigint, nanos: number): Timestamp | undefined => {
  if (!Number.isInteger(nanos) || nanos < 0 || nanos > 999_999_999) return undefined
  const micros = seconds * microsPerSecond + BigInt(Math.trunc(nanos / 1000))
  return micros < minMicros || micros > maxMicros ? undefined : fromMicros(micros)
}

export const toSecondsNanos = (t: Timestamp): { seconds: bigint; nanos: number } => {
  const micros = toMicros(t)
  const fraction = ((micros % microsPerSecond) + microsPerSecond) % microsPerSecond
  return { seconds: (micros - fraction) / microsPerSecond, nanos: Number(fraction) * 1000 }
}

/** What a refused timestamp is told, in every style. */
export const timestampRule = "must be an RFC 3339 timestamp between 0001-01-01 and 9999-12-31, e.g. 2023-11-16T12:00:00Z"

/** Decodes any RFC 3339 timestamp (any offset) to its canonical UTC form. */
export const Timestamp = Schema.transformOrFail(Schema.String, CanonicalTimestamp, {
  strict: true,
  decode: (text, _, ast) => {
    const micros = parseMicros(text)
    return micros === undefined
      ? ParseResult.fail(new ParseResult.Type(ast, text, timestampRule))
      : ParseResult.succeed(fromMicros(micros))
  },
  encode: ParseResult.succeed
})
