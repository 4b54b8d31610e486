import { Predicate } from "effect"
import type * as RpcMessage from "@effect/rpc/RpcMessage"
import { utf8Text } from "../../http/Utf8Text.js"

/**
 * Upstream, @effect/rpc answers a body it cannot use (JSON that does not parse, a frame of an
 * unknown kind or procedure, an id that is not a number) with a Defect frame carrying the
 * JavaScript error's text (`SyntaxError: Unexpected end of JSON input`), and decodes bytes that
 * are not UTF-8 as U+FFFD, so a name would be stored changed (test/transports/rpc-upstream.test.ts).
 * Corrected: the frame is read here first, strictly, and such a body is refused the way /rpc
 * refuses an oversized one, an HTTP 400 with the REST error body; the typed client reports it as
 * an `RpcClientError` (a failure it can handle) rather than a defect, and no parser's text
 * reaches the wire. A key the protocol does not define is refused too, as an unknown field is in
 * every style (contract §3.2): upstream ignores it, so a misspelt `payload` or trace field would
 * be acted on as if it were absent. This returns what is wrong with `body` as a request frame for
 * `tags`, or the frame when nothing is.
 */
export const readFrame = (body: Buffer, tags: ReadonlySet<string>): string | Record<string, unknown> => {
  const text = utf8Text(body)
  if (text === undefined) return "the request body is not valid UTF-8"
  let frame: unknown
  try {
    frame = JSON.parse(text)
  } catch {
    return "the request body is not valid JSON"
  }
  if (!Predicate.isRecord(frame) || frame["_tag"] !== "Request") {
    return `the request body must be one request frame: {"_tag": "Request", "id", "tag", "payload", "headers"}`
  }
  const unknownKey = Object.keys(frame).find((key) => !requestFrameKeys.has(key))
  if (unknownKey !== undefined) {
    return `${JSON.stringify(unknownKey).slice(1, -1)}: is not a known field of a request frame (${[...requestFrameKeys].join(", ")})`
  }
  const { headers, id, sampled, spanId, tag, traceId } = frame
  if (typeof tag !== "string" || !tags.has(tag)) return `tag: must be one of ${[...tags].join(", ")}`
  // @effect/rpc reads the id as a BigInt, which throws on anything but an integer.
  if (typeof id !== "string" || !/^\d{1,20}$/.test(id)) return "id: must be a string of up to 20 decimal digits"
  if (!isHeaderList(headers)) return "headers: must be a list of [name, value] string pairs"
  if (!isOptional(traceId, "string") || !isOptional(spanId, "string") || !isOptional(sampled, "boolean")) {
    return "traceId, spanId: must be strings; sampled: must be a boolean"
  }
  return frame
}

/** The keys of a request frame in @effect/rpc's protocol: the compiler holds this list to its `RequestEncoded`, both ways. */
const requestFrameKeys: ReadonlySet<string> = new Set(Object.keys(
  {
    _tag: true,
    id: true,
    tag: true,
    payload: true,
    headers: true,
    traceId: true,
    spanId: true,
    sampled: true
  } satisfies { readonly [Key in keyof RpcMessage.RequestEncoded]-?: true }
))

const isOptional = (value: unknown, type: "string" | "boolean") => value === undefined || typeof value === type

const isHeaderList = (value: unknown) =>
  Array.isArray(value) &&
  value.every((pair) => Array.isArray(pair) && pair.length === 2 && pair.every((part) => typeof part === "string"))
