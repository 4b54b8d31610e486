import type { DescMessage } from "@bufbuild/protobuf"
import { FieldViolation } from "../../../domain/Errors.js"
import { parseMicros, timestampRule } from "../../../domain/Timestamp.js"
import { isRecord } from "./Wire.js"

/**
 * Correction 4, rolledOverTimestamps: protobuf-es reads a JSON google.protobuf.Timestamp by
 * checking its shape and handing it to `Date.parse`, which rolls impossible dates over
 * (`2023-02-30T00:00:00Z` arrives as March 2, `T24:00:00` as the next day), and refuses others
 * without naming the field. REST, GraphQL and /rpc refuse those (contract §3). So the JSON of a
 * method whose request holds a Timestamp is checked with the domain's parser in the strict decoder
 * (jsonReadOptions.ts), and the refusal names the field's path
 * (`license.start: must be an RFC 3339 timestamp ...`).
 */

const timestampType = "google.protobuf.Timestamp"

export const holdsTimestamp = (message: DescMessage, seen: ReadonlySet<string> = new Set()): boolean =>
  message.fields.some((field) =>
    field.fieldKind === "message" &&
    (field.message.typeName === timestampType ||
      (!seen.has(field.message.typeName) && holdsTimestamp(field.message, new Set([...seen, message.typeName]))))
  )

/** The paths of the Timestamps in `json` (read as `message`) that the domain refuses. */
const badTimestamps = (message: DescMessage, json: unknown, path: ReadonlyArray<string> = []): Array<string> => {
  if (!isRecord(json)) return [] // not an object: connect-es refuses it with its own message
  return message.fields.flatMap((field) => {
    if (field.fieldKind !== "message") return []
    const at = [...path, field.jsonName]
    return [...new Set([field.jsonName, field.name])].filter((key) => Object.hasOwn(json, key)).flatMap((key) => {
      const value = json[key]
      if (value === null) return [] // proto3 JSON: null is "not set"
      if (field.message.typeName !== timestampType) return badTimestamps(field.message, value, at)
      return typeof value === "string" && parseMicros(value) !== undefined ? [] : [at.join(".")]
    })
  })
}

/** `json`'s impossible Timestamps, each a violation naming its field. */
export const timestampViolations = (message: DescMessage, json: unknown): Array<FieldViolation> =>
  badTimestamps(message, json).map((field) => new FieldViolation({ field, description: timestampRule }))
