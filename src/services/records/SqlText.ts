/**
 * A timestamptz column read as the domain's canonical text (CanonicalTimestamp: UTC, `Z`, the
 * fraction only when it is not zero, at most six digits, no trailing zeros), so no precision is
 * lost to JavaScript's millisecond Date, the session time zone does not matter, and a row read
 * back is already the value its decode would give (StoredRow.ts).
 */
export const utcText = (column: string): string =>
  `rtrim(rtrim(to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'), '0'), '.') || 'Z'`
