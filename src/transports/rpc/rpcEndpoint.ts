import * as HttpBody from "@effect/platform/HttpBody"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type * as Rpc from "@effect/rpc/Rpc"
import type * as RpcGroup from "@effect/rpc/RpcGroup"
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import * as RpcServer from "@effect/rpc/RpcServer"
import { Effect } from "effect"
import { errorTable } from "../ErrorTable.js"
import { boundedBody } from "../http/BoundedBody.js"
import { namesOtherCharset, utf8Text } from "../http/Utf8Text.js"
import { errorReply } from "../rest/RestCall.js"

/**
 * `POST /rpc`: one @effect/rpc request frame in JSON, checked before @effect/rpc reads it.
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

const invalid = (message: string) => errorReply(errorTable.InvalidArgument.http, errorTable.InvalidArgument.grpc, message)

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const isOptional = (value: unknown, type: "string" | "boolean") => value === undefined || typeof value === type

const isHeaderList = (value: unknown) =>
  Array.isArray(value) &&
  value.every((pair) => Array.isArray(pair) && pair.length === 2 && pair.every((part) => typeof part === "string"))

/** What is wrong with `body` as a request frame for `tags`, or undefined when nothing is. */
const frameProblem = (body: Buffer, tags: ReadonlySet<string>): string | undefined => {
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
  return undefined
}

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

export const rpcEndpoint = <Rpcs extends Rpc.Any>(group: RpcGroup.RpcGroup<Rpcs>) =>
  Effect.gen(function*() {
    const rpcApp = yield* RpcServer.toHttpApp(group).pipe(Effect.provide(RpcSerialization.layerJson))
    const tags: ReadonlySet<string> = new Set(group.requests.keys())
    return Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      if (namesOtherCharset(request.headers["content-type"])) {
        return errorReply(415, errorTable.InvalidArgument.grpc, "the request body must be JSON in UTF-8")
      }
      // @effect/rpc reads the body with the platform's `request.text`, which over MAX_BODY_BYTES
      // resets the connection (see BoundedBody); so it is read here, and handed over already read.
      const body = yield* boundedBody
      const problem = frameProblem(body, tags)
      if (problem !== undefined) return invalid(problem)
      const read = HttpServerRequest.fromWeb(
        new Request(new URL(request.url, "http://localhost"), { method: request.method, headers: request.headers, body })
      )
      return withoutDefectDetail(yield* Effect.provideService(rpcApp, HttpServerRequest.HttpServerRequest, read))
    }).pipe(Effect.catchTags({
      BodyTooLarge: (tooLarge) =>
        Effect.succeed(errorReply(errorTable.ResourceExhausted.http, errorTable.ResourceExhausted.grpc, tooLarge.message)),
      BodyUnreadable: () => Effect.succeed(invalid("the request body could not be read"))
    }))
  })
