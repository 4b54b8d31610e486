import * as HttpBody from "@effect/platform/HttpBody"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Predicate } from "effect"

/**
 * Upstream, a defect reaches the wire with its text: a handler's (which may hold SQL or driver
 * detail) and @effect/rpc's own (a result its schema cannot encode, with the schema's text)
 * (test/transports/rpc-upstream.test.ts). Corrected in two places: each handler logs its defect
 * once, with its cause, and lets it travel on as "internal error" (`hideDefects`); and any answer
 * that may still hold one has every Defect and Die replaced (`withoutDefectDetail`). Only answers
 * that may hold a defect are parsed.
 */
export const hideDefects = <A, E, R>(tag: string, handled: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  handled.pipe(
    Effect.tapDefect((cause) => Effect.logError(`${tag} failed`, cause)),
    Effect.catchAllDefect(() => Effect.die(new Error("internal error")))
  )

const internalError = { name: "Error", message: "internal error" }

/** A cause (as @effect/rpc encodes it) with every defect replaced by "internal error". */
const scrubCause = (cause: unknown): unknown => {
  if (!Predicate.isRecord(cause)) return cause
  if (cause["_tag"] === "Die") return { ...cause, defect: internalError }
  if (cause["_tag"] === "Sequential" || cause["_tag"] === "Parallel") {
    return { ...cause, left: scrubCause(cause["left"]), right: scrubCause(cause["right"]) }
  }
  return cause
}

const scrubFrame = (frame: unknown): unknown => {
  if (!Predicate.isRecord(frame)) return frame
  if (frame["_tag"] === "Defect") return { ...frame, defect: internalError }
  if (frame["_tag"] === "Exit" && Predicate.isRecord(frame["exit"]) && frame["exit"]["_tag"] === "Failure") {
    return { ...frame, exit: { ...frame["exit"], cause: scrubCause(frame["exit"]["cause"]) } }
  }
  return frame
}

const mayHoldDefect = (bytes: Uint8Array) => {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  return text.includes(`"Die"`) || text.includes(`"Defect"`)
}

export const withoutDefectDetail = (response: HttpServerResponse.HttpServerResponse) => {
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
