import { type DescEnum, type DescField, type DescMessage, ScalarType } from "@bufbuild/protobuf"
import { FieldViolation } from "../../../domain/Errors.js"
import { kindWords, wholeNumberFrom } from "../../../domain/RuleWords.js"
import { isRecord } from "./Wire.js"

/**
 * Correction 11, wrongJsonTypes: protobuf-es refuses a known field whose JSON value has the wrong
 * type in its own words and without a BadRequest (`cannot decode field org.v1beta1.CreateOrgRequest.name
 * from JSON: expected string, got 5`), where the other styles name the field and say the rule
 * (`name: must be a string`, contract §2 and §8). So the strict decoder's walk over the method's
 * input (ignoredUnknownFields.ts) asks, at each known field, whether its value is one proto3's JSON
 * mapping takes for the field's type, and refuses it by its path with the rule in the domain's
 * words (RuleWords.ts) otherwise. `null` is "not set" for any field. Messages with their own JSON
 * form (a Timestamp is a string) are left to their own checks.
 */

const rule = {
  string: `must be ${kindWords.string}`,
  number: `must be ${kindWords.number}`,
  boolean: `must be ${kindWords.boolean}`,
  object: `must be ${kindWords.object}`,
  list: `must be ${kindWords.list}`,
  base64: `must be ${kindWords.string} of base64`,
  notNull: "must not be null",
  oneOf: (names: ReadonlyArray<string>) => `must be one of: ${names.join(", ")}`
}

const whole = (min: bigint, max: bigint) => ({ rule: wholeNumberFrom(min, max), min, max })
const int32 = whole(-(2n ** 31n), 2n ** 31n - 1n)
const uint32 = whole(0n, 2n ** 32n - 1n)
const int64 = whole(-(2n ** 63n), 2n ** 63n - 1n)
const uint64 = whole(0n, 2n ** 64n - 1n)

const wholeKinds: Partial<Record<ScalarType, ReturnType<typeof whole>>> = {
  [ScalarType.INT32]: int32,
  [ScalarType.SINT32]: int32,
  [ScalarType.SFIXED32]: int32,
  [ScalarType.UINT32]: uint32,
  [ScalarType.FIXED32]: uint32,
  [ScalarType.INT64]: int64,
  [ScalarType.SINT64]: int64,
  [ScalarType.SFIXED64]: int64,
  [ScalarType.UINT64]: uint64,
  [ScalarType.FIXED64]: uint64
}

/** A number proto3 JSON takes as text: not empty, no surrounding space (protobuf-es reads it with `Number`). */
const numberOfText = (text: string): number => text === "" || text.trim() !== text ? NaN : Number(text)

/** Whether `json` is a whole number in [min, max], as a JSON number or as text. */
const isWholeIn = (json: unknown, { max, min }: { readonly min: bigint; readonly max: bigint }): boolean => {
  const value = typeof json === "string" ? numberOfText(json) : json
  if (typeof value !== "number" || !Number.isInteger(value)) return false
  // Text holds 64-bit values a double cannot: its digits are compared exactly.
  const exact = typeof json === "string" && /^-?\d+$/.test(json) ? BigInt(json) : BigInt(value)
  return exact >= min && exact <= max
}

const specialDoubles = new Set(["NaN", "Infinity", "-Infinity"])

/** The rule a scalar value broke, if it broke one. */
const scalarRule = (scalar: ScalarType, json: unknown): string | undefined => {
  const wholeKind = wholeKinds[scalar]
  if (wholeKind !== undefined) return isWholeIn(json, wholeKind) ? undefined : wholeKind.rule
  switch (scalar) {
    case ScalarType.STRING:
      return typeof json === "string" ? undefined : rule.string
    case ScalarType.BOOL:
      return typeof json === "boolean" ? undefined : rule.boolean
    case ScalarType.BYTES:
      return typeof json === "string" ? undefined : rule.base64
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT: {
      if (typeof json === "number" || (typeof json === "string" && specialDoubles.has(json))) return undefined
      return typeof json === "string" && Number.isFinite(numberOfText(json)) ? undefined : rule.number
    }
    default:
      return undefined
  }
}

const enumRule = (desc: DescEnum, json: unknown): string | undefined =>
  (typeof json === "number" && Number.isInteger(json)) || (typeof json === "string" && desc.values.some((v) => v.name === json))
    ? undefined
    : rule.oneOf(desc.values.map((v) => v.name))

/** Messages whose JSON form is not an object of their fields (a Timestamp is a string): protobuf-es reads them itself. */
export const hasOwnJsonForm = (message: DescMessage) => message.typeName.startsWith("google.protobuf.")

/** The rule one value (a field's, or a list item's or map value's) broke, if it broke one. */
const valueRule = (
  kind: { readonly scalar?: ScalarType | undefined; readonly enum?: DescEnum | undefined; readonly message?: DescMessage | undefined },
  json: unknown
): string | undefined => {
  if (kind.scalar !== undefined) return scalarRule(kind.scalar, json)
  if (kind.enum !== undefined) return enumRule(kind.enum, json)
  if (kind.message !== undefined && !hasOwnJsonForm(kind.message)) return isRecord(json) ? undefined : rule.object
  return undefined
}

/** Items of a list and values of a map: each its own value, `null` only where it is one (google.protobuf.Value's). */
const eachRule = (field: DescField & { fieldKind: "list" | "map" }, json: unknown): string | undefined => {
  if (json === null) return field.message?.typeName === "google.protobuf.Value" ? undefined : rule.notNull
  return valueRule(field, json)
}

/**
 * The violations of `json`, the value of `field` at `at` (by JSON names): its own, or its items'
 * and values' (`tags.2`). A message's fields are the walk's to read.
 */
export const wrongJsonTypes = (field: DescField, json: unknown, at: ReadonlyArray<string>): Array<FieldViolation> => {
  if (json === null) return [] // proto3 JSON: null is "not set"
  const violation = (path: ReadonlyArray<string>, description: string) => new FieldViolation({ field: path.join("."), description })
  switch (field.fieldKind) {
    case "list": {
      if (!Array.isArray(json)) return [violation(at, rule.list)]
      return json.flatMap((item, index) => {
        const rule = eachRule(field, item)
        return rule === undefined ? [] : [violation([...at, String(index)], rule)]
      })
    }
    case "map": {
      if (!isRecord(json)) return [violation(at, rule.object)]
      return Object.entries(json).flatMap(([key, value]) => {
        const rule = eachRule(field, value)
        return rule === undefined ? [] : [violation([...at, key], rule)]
      })
    }
    default: {
      const rule = valueRule(field, json)
      return rule === undefined ? [] : [violation(at, rule)]
    }
  }
}

/** Whether `wrongJsonTypes` finds nothing in `json`: the same rules, without building a violation or a path. */
export const fitsJsonType = (field: DescField, json: unknown): boolean => {
  if (json === null) return true
  switch (field.fieldKind) {
    case "list": {
      if (!Array.isArray(json)) return false
      for (const item of json) if (eachRule(field, item) !== undefined) return false
      return true
    }
    case "map": {
      if (!isRecord(json)) return false
      for (const key in json) if (Object.hasOwn(json, key) && eachRule(field, json[key]) !== undefined) return false
      return true
    }
    default:
      return valueRule(field, json) === undefined
  }
}
