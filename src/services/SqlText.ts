/**
 * A timestamptz column read as UTC RFC 3339 text with all six fractional digits, so no precision
 * is lost to JavaScript's millisecond Date and the session time zone does not matter.
 */
export const utcText = (column: string): string =>
  `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
