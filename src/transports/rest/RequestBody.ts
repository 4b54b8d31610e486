import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect, FiberRef, Layer } from "effect"
import { InvalidArgument } from "../../domain/Errors.js"
import { boundedBody } from "../http/BoundedBody.js"
import { CurrentJsonBounds, jsonBoundsBroken } from "../http/JsonBounds.js"
import { namesOtherCharset, utf8Text } from "../http/Utf8Text.js"
import { JsonBodyReader } from "./HttpApis.js"
import { ResourceExhausted, UnsupportedMediaType } from "./RestErrors.js"

const isJsonType = (contentType: string | undefined): boolean => {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase()
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"))
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const lowerCamel = (name: string): string => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())

const maxRenamedDepth = 8

/**
 * Proto3 JSON accepts a field by its proto name (`full_name`) or its JSON name (`fullName`);
 * the domain speaks lowerCamel. Where a request has both spellings, the JSON name wins. No
 * request of ours nests deeper than a few levels, so deeper values are left as they are: they
 * can only be unknown fields, which are ignored, and a deeply nested one must not exhaust the stack.
 */
export const lowerCamelKeys = (value: unknown, depth = 0): unknown => {
  if (depth > maxRenamedDepth) return value
  if (Array.isArray(value)) return value.map((item) => lowerCamelKeys(item, depth + 1))
  if (!isPlainObject(value)) return value
  const result: Record<string, unknown> = {}
  for (const [key, field] of Object.entries(value)) {
    const name = lowerCamel(key)
    if (name === key || !(name in value)) result[name] = lowerCamelKeys(field, depth + 1)
  }
  return result
}

/** The request's JSON object body, its keys in lowerCamel. */
const jsonObjectBody = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  if (!isJsonType(request.headers["content-type"])) {
    return yield* new UnsupportedMediaType({ message: "the request body must be JSON (Content-Type: application/json)" })
  }
  if (namesOtherCharset(request.headers["content-type"])) {
    return yield* new UnsupportedMediaType({
      message: "the request body must be JSON in UTF-8 (Content-Type: application/json; charset=utf-8)"
    })
  }
  // Not `request.text`: over MAX_BODY_BYTES it resets the connection instead of letting a 413 through.
  const bytes = yield* boundedBody.pipe(
    Effect.catchTags({
      BodyTooLarge: (tooLarge) => new ResourceExhausted({ message: tooLarge.message }),
      BodyUnreadable: () => InvalidArgument.field("", "the request body could not be read")
    })
  )
  // Before anything reads the JSON: parsing and walking a body past the bounds stalls every port.
  const broken = jsonBoundsBroken(bytes, yield* FiberRef.get(CurrentJsonBounds))
  if (broken !== undefined) return yield* new ResourceExhausted({ message: broken })
  const text = utf8Text(bytes)
  if (text === undefined) return yield* InvalidArgument.field("", "the request body is not valid UTF-8")
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return yield* InvalidArgument.field("", "the request body is not valid JSON")
  }
  if (!isPlainObject(parsed)) return yield* InvalidArgument.field("", "the request body must be a JSON object")
  return lowerCamelKeys(parsed) as Record<string, unknown>
})

/** The path names the resource; an id in the body may repeat it but not contradict it. */
export const withPathId = (body: Record<string, unknown>, id: string) =>
  body["id"] === undefined || (typeof body["id"] === "string" && body["id"].toLowerCase() === id.toLowerCase())
    ? Effect.succeed({ ...body, id })
    : Effect.fail(InvalidArgument.field("id", "must match the id in the path"))

/** The JsonBodyReader middleware of every write endpoint. */
export const JsonBodyReaderLive = Layer.succeed(JsonBodyReader, jsonObjectBody)
