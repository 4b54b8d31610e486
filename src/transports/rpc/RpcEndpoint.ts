import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as HttpBody from "@effect/platform/HttpBody"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type * as Rpc from "@effect/rpc/Rpc"
import type * as RpcGroup from "@effect/rpc/RpcGroup"
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import * as RpcServer from "@effect/rpc/RpcServer"
import type * as Headers from "@effect/platform/Headers"
import { Effect, Either, FiberRef, Layer, Schema } from "effect"
import { InvalidArgument } from "../../domain/Errors.js"
import { handlersOf, type OperationHandlers, type RpcHandlers } from "../../operations/Operation.js"
import { validate } from "../../domain/Validation.js"
import { boundedBody } from "../http/BoundedBody.js"
import { callOf } from "../http/Calls.js"
import { CurrentJsonBounds, jsonBoundsBroken } from "../http/JsonBounds.js"
import { requestIdIn } from "../http/RequestId.js"
import { namesOtherCharset, utf8Text } from "../http/Utf8Text.js"
import { errorReply } from "../rest/RestCall.js"

/**
 * `POST /rpc`: one @effect/rpc request frame in JSON (`Content-Type: application/json`, and
 * nothing else), checked before @effect/rpc reads it.
 *
 * @effect/rpc answers a body it cannot use (JSON that does not parse, a frame of an unknown kind
 * or procedure, an id that is not a number) with a Defect frame carrying the JavaScript error's
 * text (`SyntaxError: Unexpected end of JSON input`), and decodes bytes that are not UTF-8 as
 * U+FFFD, so a name would be stored changed. Here such a body is refused the way /rpc refuses
 * an oversized one: an HTTP error with the REST error body, `{code: 3, message, details: []}`.
 * The typed client reports it as an `RpcClientError` (a failure it can handle) rather than a
 * defect, and no parser's text reaches the wire. A well-formed frame goes on to @effect/rpc
 * unchanged; what it answers is scrubbed of defect detail on the way out.
 */

const invalid = (message: string) => errorReply("InvalidArgument", message)

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const isOptional = (value: unknown, type: "string" | "boolean") => value === undefined || typeof value === type

const isHeaderList = (value: unknown) =>
  Array.isArray(value) &&
  value.every((pair) => Array.isArray(pair) && pair.length === 2 && pair.every((part) => typeof part === "string"))

/** What is wrong with `body` as a request frame for `tags`, or the frame when nothing is. */
const readFrame = (body: Buffer, tags: ReadonlySet<string>): string | Record<string, unknown> => {
  const text = utf8Text(body)
  if (text === undefined) return "the request body is not valid UTF-8"
  let frame: unknown
  try {
    frame = JSON.parse(text)
  } catch {
    return "the request body is not valid JSON"
  }
  if (!isRecord(frame) || frame["_tag"] !== "Request") {
    return `the request body must be one request frame: {"_tag": "Request", "id", "tag", "payload", "headers"}`
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

/** The media type of the serialization /rpc speaks (RpcSerialization.layerJson), which its typed client sends. */
const frameMediaType = RpcSerialization.json.contentType

/**
 * Whether a Content-Type is /rpc's media type (any parameters aside). Anything else is refused
 * unread, as REST, Connect and GraphQL refuse it: a browser sends `text/plain`, a form's types,
 * or no type at all to any site without asking first (no CORS preflight), so a page the user
 * visits could otherwise create orgs and workflows here with a `fetch` or an HTML form.
 */
const isFrameMediaType = (contentType: string | undefined): boolean =>
  (contentType ?? "").split(";", 1)[0]!.trim().toLowerCase() === frameMediaType

const internalError = { name: "Error", message: "internal error" }

/** A cause (as @effect/rpc encodes it) with every defect replaced by "internal error". */
const scrubCause = (cause: unknown): unknown => {
  if (!isRecord(cause)) return cause
  if (cause["_tag"] === "Die") return { ...cause, defect: internalError }
  if (cause["_tag"] === "Sequential" || cause["_tag"] === "Parallel") {
    return { ...cause, left: scrubCause(cause["left"]), right: scrubCause(cause["right"]) }
  }
  return cause
}

const scrubFrame = (frame: unknown): unknown => {
  if (!isRecord(frame)) return frame
  if (frame["_tag"] === "Defect") return { ...frame, defect: internalError }
  if (frame["_tag"] === "Exit" && isRecord(frame["exit"]) && frame["exit"]["_tag"] === "Failure") {
    return { ...frame, exit: { ...frame["exit"], cause: scrubCause(frame["exit"]["cause"]) } }
  }
  return frame
}

const mayHoldDefect = (bytes: Uint8Array) => {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  return text.includes(`"Die"`) || text.includes(`"Defect"`)
}

/** How the call's Exit frame ended: "ok", its failure's tag, or "Internal" for a defect. */
const outcomeOfFrames = (response: HttpServerResponse.HttpServerResponse): string => {
  const body = response.body
  if (body._tag !== "Uint8Array") return "ok"
  const text = Buffer.from(body.body.buffer, body.body.byteOffset, body.body.byteLength).toString("utf8")
  if (!text.includes(`"Failure"`) && !text.includes(`"Defect"`)) return "ok"
  let frames: unknown
  try {
    frames = JSON.parse(text)
  } catch {
    return "Internal"
  }
  const first = (Array.isArray(frames) ? frames : []).find((frame) => isRecord(frame))
  if (!isRecord(first) || first["_tag"] !== "Exit" || !isRecord(first["exit"])) return "Internal"
  const findFail = (cause: unknown): string | undefined => {
    if (!isRecord(cause)) return undefined
    if (cause["_tag"] === "Fail" && isRecord(cause["error"])) return String(cause["error"]["_tag"] ?? "Internal")
    return findFail(cause["left"]) ?? findFail(cause["right"])
  }
  return first["exit"]["_tag"] === "Success" ? "ok" : findFail(first["exit"]["cause"]) ?? "Internal"
}

/**
 * Handlers already replace their defects with "internal error" (rpcHandlers.ts); what @effect/rpc
 * adds itself (a result its schema cannot encode, say) carries schema or JavaScript error text,
 * and is replaced here too. Only answers that may hold a defect are parsed.
 */
const withoutDefectDetail = (response: HttpServerResponse.HttpServerResponse) => {
  const body = response.body
  if (body._tag !== "Uint8Array" || !mayHoldDefect(body.body)) return response
  let frames: unknown
  try {
    frames = JSON.parse(Buffer.from(body.body).toString("utf8"))
  } catch {
    return response
  }
  if (!Array.isArray(frames)) return response
  return HttpServerResponse.setBody(response, HttpBody.text(JSON.stringify(frames.map(scrubFrame)), body.contentType))
}

/**
 * @effect/rpc's handlers of the table, made from the handlers every style runs (`handlersOf`): a
 * defect is logged once, with its cause, and travels on as "internal error" (its message may hold
 * SQL or driver detail).
 */
const rpcHandlers = <Rpcs extends Rpc.Any>(rpcs: ReadonlyArray<Rpc.AnyWithProps>, record: OperationHandlers<Rpcs>) =>
  Object.fromEntries(rpcs.map((rpc) => {
    const handler = record[rpc._tag as Rpcs["_tag"]] as (payload: unknown) => Effect.Effect<unknown, unknown>
    return [
      rpc._tag,
      (payload: unknown, options: { readonly headers: Headers.Headers }) =>
        handler(payload).pipe(
          Effect.tapDefect((cause) => Effect.logError(`${rpc._tag} failed`, cause)),
          Effect.catchAllDefect(() => Effect.die(new Error("internal error"))),
          // @effect/rpc hands the handler the HTTP request's headers with the frame's own.
          Effect.annotateLogs("requestId", requestIdIn(options.headers))
        )
    ]
  })) as unknown as RpcHandlers<Rpcs>

/**
 * A payload that does not even have its operation's wire shape (a number for a name, a field left
 * out) would be answered by @effect/rpc as a defect carrying the schema's text. It is the caller's
 * mistake, so it is answered here as the operation's typed InvalidArgument failure, in the
 * response frame @effect/rpc itself would send for one.
 */
const shapeChecks = (rpcs: Iterable<Rpc.AnyWithProps>) => {
  const checks = new Map<string, (payload: unknown) => Either.Either<unknown, InvalidArgument>>()
  for (const rpc of rpcs) {
    const check = validate(rpc.payloadSchema as Schema.Schema<unknown, unknown, never>)
    checks.set(rpc._tag, (payload) => Effect.runSync(Effect.either(check(payload))))
  }
  return checks
}

const encodeInvalid = Schema.encodeSync(InvalidArgument)

const failureFrame = (requestId: unknown, error: InvalidArgument) =>
  HttpServerResponse.unsafeJson([{
    _tag: "Exit",
    requestId,
    exit: { _tag: "Failure", cause: { _tag: "Fail", error: encodeInvalid(error) } }
  }])

export const rpcEndpoint = <Rpcs extends Rpc.Any>(group: RpcGroup.RpcGroup<Rpcs>) =>
  Effect.gen(function*() {
    const rpcs = [...group.requests.values()] as unknown as ReadonlyArray<Rpc.AnyWithProps>
    // The handlers need nothing from the context (`RpcHandlers`); a generic table hides that from the types.
    const handlersLayer = group.toLayer(rpcHandlers(rpcs, yield* handlersOf(group))) as Layer.Layer<Rpc.ToHandler<Rpcs>>
    const handlers = yield* Layer.build(handlersLayer)
    const rpcApp = yield* RpcServer.toHttpApp(group).pipe(
      Effect.provide(RpcSerialization.layerJson),
      Effect.provide(handlers)
    )
    const tags: ReadonlySet<string> = new Set(group.requests.keys())
    const checks = shapeChecks(rpcs)
    return Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      if (!isFrameMediaType(request.headers["content-type"])) {
        return errorReply("UnsupportedMediaType", `the request body must be one request frame in JSON (Content-Type: ${frameMediaType})`)
      }
      if (namesOtherCharset(request.headers["content-type"])) {
        return errorReply("UnsupportedMediaType", "the request body must be JSON in UTF-8")
      }
      // @effect/rpc reads the body with the platform's `request.text`, which over MAX_BODY_BYTES
      // resets the connection (see BoundedBody); so it is read here, and handed over already read.
      const body = yield* boundedBody
      // Before the frame is parsed: parsing and walking one past the bounds stalls every port.
      const broken = jsonBoundsBroken(body, yield* FiberRef.get(CurrentJsonBounds))
      if (broken !== undefined) return errorReply("ResourceExhausted", broken)
      const frame = readFrame(body, tags)
      if (typeof frame === "string") return invalid(frame)
      // @effect/rpc runs handlers in its server's fiber, not this one: the call is noted from its frames.
      const call = callOf(NodeHttpServerRequest.toIncomingMessage(request))
      if (call !== undefined) call.operation = frame["tag"] as string
      const shape = checks.get(frame["tag"] as string)!(frame["payload"])
      if (Either.isLeft(shape)) {
        if (call !== undefined) call.outcome = "InvalidArgument"
        return failureFrame(frame["id"], shape.left)
      }
      // @effect/rpc makes the handler's span a child of the frame's trace fields: the call's own span.
      const span = call?.span
      const forwarded = span === undefined
        ? body
        : JSON.stringify({ ...frame, traceId: span.traceId, spanId: span.spanId, sampled: span.sampled })
      const read = HttpServerRequest.fromWeb(
        new Request(new URL(request.url, "http://localhost"), { method: request.method, headers: request.headers, body: forwarded })
      )
      const response = withoutDefectDetail(yield* Effect.provideService(rpcApp, HttpServerRequest.HttpServerRequest, read))
      if (call !== undefined) call.outcome = outcomeOfFrames(response)
      return response
    }).pipe(Effect.catchTags({
      BodyTooLarge: (tooLarge) =>
        Effect.succeed(errorReply("ResourceExhausted", tooLarge.message)),
      BodyUnreadable: () => Effect.succeed(invalid("the request body could not be read"))
    }))
  })
