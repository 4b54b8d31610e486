import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type * as Rpc from "@effect/rpc/Rpc"
import type * as RpcGroup from "@effect/rpc/RpcGroup"
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import * as RpcServer from "@effect/rpc/RpcServer"
import type * as Headers from "@effect/platform/Headers"
import { Effect, FiberRef, Layer, Predicate } from "effect"
import { handlersOf, requestOf, type RpcHandlers } from "../../operations/Operation.js"
import type { OperationHandlers } from "../../contract/OperationHandlers.js"
import { boundedBody } from "../limits/BoundedBody.js"
import { callOf } from "../http/Calls.js"
import { CurrentJsonBounds, jsonBoundsBroken } from "../limits/JsonBounds.js"
import { requestIdIn } from "../http/RequestId.js"
import { namesOtherCharset } from "../http/Utf8Text.js"
import { errorReply } from "../rest/RestCall.js"
import { hideDefects, withoutDefectDetail } from "../corrections/rpc/defectDetail.js"
import { malformedPayloads } from "../corrections/rpc/malformedPayloads.js"
import { readFrame } from "../corrections/rpc/unreadableFrames.js"

/**
 * `POST /rpc`: @effect/rpc's own server (`RpcServer.toHttpApp`, JSON serialization) over handlers
 * made from the table's record, with what @effect/rpc's middleware cannot do done around it: the
 * media type and the body's bounds (as every style), and three corrections of @effect/rpc, one
 * module each in `corrections/`, named after the upstream behaviour and shown upstream by
 * test/transports/rpc-upstream.test.ts (its middleware runs per procedure, after the frame and the
 * payload are decoded, so none of them can be corrected there).
 */

const invalid = (message: string) => errorReply("InvalidArgument", message)

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
  const first = (Array.isArray(frames) ? frames : []).find((frame) => Predicate.isRecord(frame))
  if (!Predicate.isRecord(first) || first["_tag"] !== "Exit" || !Predicate.isRecord(first["exit"])) return "Internal"
  const findFail = (cause: unknown): string | undefined => {
    if (!Predicate.isRecord(cause)) return undefined
    if (cause["_tag"] === "Fail" && Predicate.isRecord(cause["error"])) return String(cause["error"]["_tag"] ?? "Internal")
    return findFail(cause["left"]) ?? findFail(cause["right"])
  }
  return first["exit"]["_tag"] === "Success" ? "ok" : findFail(first["exit"]["cause"]) ?? "Internal"
}

/**
 * @effect/rpc's handlers of the table, made from the handlers every style runs (`handlersOf`):
 * @effect/rpc hands each the payload in its wire shape (WireShape.ts says why this edge keeps
 * it), and the operation's one decode (`requestOf`) makes it the domain request first.
 */
const rpcHandlers = <Rpcs extends Rpc.Any>(group: RpcGroup.RpcGroup<Rpcs>, record: OperationHandlers<Rpcs>) =>
  Object.fromEntries([...group.requests.keys()].map((tag: Rpcs["_tag"]) => {
    const decode = requestOf(group, tag)
    const handler = record[tag]
    return [
      tag,
      (payload: unknown, options: { readonly headers: Headers.Headers }) =>
        hideDefects(tag, Effect.flatMap(decode(payload), handler)).pipe(
          // @effect/rpc hands the handler the HTTP request's headers with the frame's own.
          Effect.annotateLogs("requestId", requestIdIn(options.headers))
        )
    ]
  })) as unknown as RpcHandlers<Rpcs>

export const rpcEndpoint = <Rpcs extends Rpc.Any>(group: RpcGroup.RpcGroup<Rpcs>) =>
  Effect.gen(function*() {
    const bounds = yield* FiberRef.get(CurrentJsonBounds)
    const rpcs = [...group.requests.values()] as unknown as ReadonlyArray<Rpc.AnyWithProps>
    // The handlers need nothing from the context (`RpcHandlers`); a generic table hides that from the types.
    const handlersLayer = group.toLayer(rpcHandlers(group, yield* handlersOf(group))) as Layer.Layer<Rpc.ToHandler<Rpcs>>
    const handlers = yield* Layer.build(handlersLayer)
    const rpcApp = yield* RpcServer.toHttpApp(group).pipe(
      Effect.provide(RpcSerialization.layerJson),
      Effect.provide(handlers)
    )
    const tags: ReadonlySet<string> = new Set(group.requests.keys())
    const malformed = malformedPayloads(rpcs)
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
      const broken = jsonBoundsBroken(body, bounds)
      if (broken !== undefined) return errorReply("ResourceExhausted", broken)
      const frame = readFrame(body, tags)
      if (typeof frame === "string") return invalid(frame)
      // @effect/rpc runs handlers in its server's fiber, not this one: the call is noted from its frames.
      const call = callOf(NodeHttpServerRequest.toIncomingMessage(request))
      if (call !== undefined) call.operation = frame["tag"] as string
      const refused = malformed(frame["tag"] as string, frame["id"], frame["payload"])
      if (refused !== undefined) {
        if (call !== undefined) call.outcome = "InvalidArgument"
        return refused
      }
      // @effect/rpc makes the handler's span a child of the frame's trace fields: the call's own span.
      const span = call?.span
      const forwarded = span === undefined
        ? body
        : JSON.stringify({ ...frame, traceId: span.traceId, spanId: span.spanId, sampled: span.sampled })
      // The same request with its body already read: only the body goes through a web Request.
      // Its Headers refuse node:http2's headers (the symbol key of the sensitive ones, the
      // pseudo-headers `:path`, ...), so the platform's own are kept, as @effect/rpc would see them
      // served directly, over either HTTP version.
      const read = HttpServerRequest.fromWeb(
        new Request(new URL(request.url, "http://localhost"), { method: request.method, body: forwarded })
      ).modify({ headers: request.headers })
      const response = withoutDefectDetail(yield* Effect.provideService(rpcApp, HttpServerRequest.HttpServerRequest, read))
      if (call !== undefined) call.outcome = outcomeOfFrames(response)
      return response
    }).pipe(Effect.catchTags({
      BodyTooLarge: (tooLarge) =>
        Effect.succeed(errorReply("ResourceExhausted", tooLarge.message)),
      BodyUnreadable: () => Effect.succeed(invalid("the request body could not be read"))
    }))
  })
