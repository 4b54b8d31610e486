import type { DescMessage } from "@bufbuild/protobuf"
import { FieldViolation } from "../../../domain/Errors.js"
import { unknownFieldRule } from "../../../domain/Validation.js"
import { isRecord } from "./Wire.js"
import { fitsJsonType, hasOwnJsonForm, wrongJsonTypes } from "./wrongJsonTypes.js"
import type { DescField } from "@bufbuild/protobuf"

/**
 * Correction 10, ignoredUnknownFields: connect-es's router reads a JSON message with
 * `ignoreUnknownFields` unless told otherwise, so a field the message does not have is dropped
 * and the call succeeds without it, though proto3's JSON mapping refuses one by default (and the
 * other styles refuse it, contract §3.2). Told otherwise, protobuf-es refuses it naming the
 * message's type, not the field (`cannot decode message workflow.v1beta1.CreateOnboardingWorkflowRequest.Profile
 * from JSON: key "nickname" is unknown`). So the router is told otherwise (jsonReadOptions.ts),
 * and first the strict decoder there walks the JSON over the method's input and refuses each
 * unknown key by its path (`profile.nickname`), as the other styles name it. Binary messages keep
 * protobuf's wire rule: an unknown field number is skipped.
 */

/**
 * Each key of `json` (read as `message`) that names no field of it, and each known field's value
 * of the wrong JSON type (wrongJsonTypes.ts), by its path: nested messages' keys too.
 */
export const unknownFields = (message: DescMessage, json: unknown, path: ReadonlyArray<string> = []): Array<FieldViolation> => {
  if (!isRecord(json)) return [] // not an object: connect-es refuses it with its own message
  return Object.entries(json).flatMap(([key, value]) => {
    const field = message.fields.find((each) => each.jsonName === key || each.name === key)
    if (field === undefined) return [new FieldViolation({ field: [...path, key].join("."), description: unknownFieldRule })]
    const at = [...path, field.jsonName]
    const wrong = wrongJsonTypes(field, value, at)
    if (field.fieldKind === "message" && !hasOwnJsonForm(field.message)) return [...wrong, ...unknownFields(field.message, value, at)]
    if (field.fieldKind === "list" && field.listKind === "message" && !hasOwnJsonForm(field.message) && Array.isArray(value)) {
      return [...wrong, ...value.flatMap((item, index) => unknownFields(field.message, item, [...at, String(index)]))]
    }
    return wrong
  })
}

/** Each message's fields by the keys a JSON object may name them by (JSON name, proto name), the first field in order winning, as `find` does above. */
const fieldsByKey = new WeakMap<DescMessage, ReadonlyMap<string, DescField>>()
const fieldOf = (message: DescMessage, key: string): DescField | undefined => {
  let byKey = fieldsByKey.get(message)
  if (byKey === undefined) {
    const made = new Map<string, DescField>()
    for (const field of message.fields) {
      if (!made.has(field.jsonName)) made.set(field.jsonName, field)
      if (!made.has(field.name)) made.set(field.name, field)
    }
    byKey = made
    fieldsByKey.set(message, byKey)
  }
  return byKey.get(key)
}

/**
 * Whether `unknownFields` finds nothing in `json`: the same walk, without building a path or a
 * list, so that an ordinary request allocates nothing for it; the walk that names each violation
 * runs only when this one finds something.
 */
export const onlyKnownFields = (message: DescMessage, json: unknown): boolean => {
  if (!isRecord(json)) return true
  for (const key in json) {
    if (!Object.hasOwn(json, key)) continue
    const field = fieldOf(message, key)
    if (field === undefined) return false
    const value = json[key]
    if (!fitsJsonType(field, value)) return false
    if (field.fieldKind === "message" && !hasOwnJsonForm(field.message) && !onlyKnownFields(field.message, value)) return false
    if (field.fieldKind === "list" && field.listKind === "message" && !hasOwnJsonForm(field.message) && Array.isArray(value)) {
      for (const item of value) if (!onlyKnownFields(field.message, item)) return false
    }
  }
  return true
}
