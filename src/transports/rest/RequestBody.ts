import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect, FiberRef, Layer, Predicate } from "effect"
import { InvalidArgument } from "../../domain/Errors.js"
import { boundedBody } from "../limits/BoundedBody.js"
import { CurrentJsonBounds, type JsonBounds, jsonBoundsBroken } from "../limits/JsonBounds.js"
import { namesOtherCharset, utf8Text } from "../http/Utf8Text.js"
import { JsonBodyReader } from "../../contract/HttpApis.js"
import { ResourceExhausted, UnsupportedMediaType } from "../../contract/RestErrors.js"

const isJsonType = (contentType: string | undefined): boolean => {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase()
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"))
}

/** The request's JSON object body, as written: its operation's schema says which names it takes (`jsonNamed`). */
const jsonObjectBody = (bounds: JsonBounds) => Effect.gen(function*() {
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
  const broken = jsonBoundsBroken(bytes, bounds)
  if (broken !== undefined) return yield* new ResourceExhausted({ message: broken })
  const text = utf8Text(bytes)
  if (text === undefined) return yield* InvalidArgument.field("", "the request body is not valid UTF-8")
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return yield* InvalidArgument.field("", "the request body is not valid JSON")
  }
  if (!Predicate.isRecord(parsed)) return yield* InvalidArgument.field("", "the request body must be a JSON object")
  return parsed
})

/** The path names the resource; an id in the body may repeat it but not contradict it. */
export const withPathId = (body: Record<string, unknown>, id: string) =>
  body["id"] === undefined || (typeof body["id"] === "string" && body["id"].toLowerCase() === id.toLowerCase())
    ? Effect.succeed({ ...body, id })
    : Effect.fail(InvalidArgument.field("id", "must match the id in the path"))

/** The JsonBodyReader middleware of every write endpoint, with the bounds of the port it is built for. */
export const JsonBodyReaderLive = Layer.effect(JsonBodyReader, Effect.map(FiberRef.get(CurrentJsonBounds), jsonObjectBody))

export type QueryParameters = { readonly [name: string]: string | ReadonlyArray<string> | undefined }

const integer = /^[+-]?\d+$/

/**
 * A list's query parameters, read by their JSON names (`jsonNamed`), as its request, the way a
 * JSON body would carry it: `pageSize` a number when it is written as one (query text is always a
 * string; anything else is passed on for the domain to refuse); an empty value not given. A
 * parameter given twice is refused: which one was meant is unknown.
 */
export const queryRequest = (parameters: QueryParameters): Effect.Effect<Record<string, unknown>, InvalidArgument> => {
  const request: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(parameters)) {
    if (value === undefined || value === "") continue
    if (typeof value !== "string") return Effect.fail(InvalidArgument.field(name, "must be given once"))
    request[name] = name === "pageSize" && integer.test(value) ? Number(value) : value
  }
  return Effect.succeed(request)
}
