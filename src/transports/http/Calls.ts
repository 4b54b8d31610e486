import { codeToString } from "@connectrpc/connect/protocol-connect"
import { type Cause, Effect, FiberRef, FiberRefs, Record, type Runtime, type Tracer } from "effect"
import { type CallNote, CurrentCallNote } from "../../operations/Operation.js"
import { errorTable, type FailureKind } from "../ErrorTable.js"
import type { Request, Response } from "./RequestHandler.js"

/** Connect, gRPC and gRPC-Web address `/<package>.<Service>/<Method>`; no REST path has a dot there. */
export const isRpcPath = (path: string) => path.indexOf(".") !== -1 && path.indexOf(".") < path.indexOf("/", 1)

/** The access styles a call can arrive in. */
export type Style = "connect" | "grpc" | "grpc-web" | "rest" | "graphql" | "rpc"

/** A request's path, without its query. */
export const pathOf = (request: Request): string => (request.url ?? "/").split("?", 1)[0]!

/** Which style a request speaks, from its path and content type. */
export const styleOf = (request: Request, path: string = pathOf(request)): Style => {
  if (isRpcPath(path)) {
    const contentType = (request.headers["content-type"] ?? "").toLowerCase()
    if (contentType.startsWith("application/grpc-web")) return "grpc-web"
    if (contentType.startsWith("application/grpc")) return "grpc"
    return "connect"
  }
  if (path === "/graphql") return "graphql"
  return path === "/rpc" ? "rpc" : "rest"
}

/**
 * One call, from the pipeline's first look to the end of its response: what the access log line
 * and the call metrics say of it. The operation and its outcome are noted by the operation runner
 * (CallNote); `code` is set by whoever answers on the wire without one (a refusal, connect-node).
 */
export interface Call extends CallNote {
  readonly style: Style
  readonly method: string
  readonly path: string
  /** `performance.now()` when the pipeline first saw the request. */
  readonly started: number
  /** The code the caller got, in Connect's names (`ok`, `not_found`, ...), when the wire says so. */
  code: string | undefined
  /** The call's server span, when tracing is on: the parent of everything the call runs. */
  span: Tracer.Span | undefined
  /** Whether the call may run more than one operation (GraphQL says so of a document of several root fields). */
  severalOperations: boolean
}

class CallRecord implements Call {
  readonly started = performance.now()
  operation: string | undefined = undefined
  outcome: string | undefined = undefined
  code: string | undefined = undefined
  span: Tracer.Span | undefined = undefined
  severalOperations = false
  failure: Cause.Cause<unknown> | undefined = undefined
  constructor(
    readonly requestId: string,
    readonly style: Style,
    readonly method: string,
    readonly path: string
  ) {}
  get traced() {
    return this.span !== undefined
  }
  get operationSpans() {
    return this.span !== undefined && this.severalOperations
  }
}

const calls = new WeakMap<object, Call>()

export const beginCall = (request: Request, requestId: string, path: string): Call => {
  const call = new CallRecord(requestId, styleOf(request, path), request.method ?? "", path)
  calls.set(request, call)
  return call
}

/** The call of a request the pipeline saw (a Node request, in either HTTP version). */
export const callOf = (request: object): Call | undefined => calls.get(request)

const codeNames = Record.map(errorTable, (wire) => codeToString(wire.connect))

/** Connect's name of a failure kind's code (`invalid_argument`), or `ok`. */
export const codeName = (kind: FailureKind | "ok"): string => (kind === "ok" ? "ok" : codeNames[kind])

/** Records what the wire says of a call, once: the first answer is the one the caller got. */
export const answered = (request: object, code: string): void => {
  const call = calls.get(request)
  if (call !== undefined && call.code === undefined) call.code = code
}

// The first kind of a status wins: 404 is NotFound's in REST; Unimplemented's 404 is only ever
// answered to Connect callers, whose code the wire tells.
const kindByRestStatus = new Map(
  Record.toEntries(errorTable).reverse().map(([kind, wire]) => [wire.http, kind])
)

const isKind = (outcome: string): outcome is FailureKind => Object.hasOwn(errorTable, outcome)

/**
 * The code a finished call ended with: what the wire said, else its operation's outcome, else its
 * HTTP status read by the REST table (every REST status is one kind's); `canceled` when the
 * response never finished (the client went away), `unknown` when nothing tells.
 */
export const finalCode = (call: Call, response: Response): string => {
  if (call.code !== undefined) return call.code
  if (!response.writableFinished) return "canceled"
  if (call.outcome !== undefined) {
    if (call.outcome === "ok" || call.outcome === "Canceled") return call.outcome.toLowerCase()
    return isKind(call.outcome) ? codeName(call.outcome) : "unknown"
  }
  if (response.statusCode === 200 || response.statusCode === 201) return "ok"
  const kind = kindByRestStatus.get(response.statusCode)
  return kind === undefined ? "unknown" : codeName(kind)
}

/** The note of a call: its record, or one of its own for a request the pipeline did not see. */
const noteOf = (call: Call | undefined, requestId: string): CallNote =>
  call ?? { requestId, operation: undefined, outcome: undefined, traced: false, operationSpans: false, failure: undefined }

/**
 * Runs a call's Effect as that call: its operation is noted, and its log lines carry the request
 * id, which the process's loggers read from the note (src/main/Logging.ts) rather than from a log
 * annotation. Every style runs a call's Effect as a fiber of its own (a request's in the platform,
 * one per handler run in Connect and GraphQL), so the note is set on that fiber for the rest of its
 * life rather than scoped. One fiber-local, set once: each change copies the fiber's locals (a JS
 * Map), a copy of every local per change on every call's path. A request the pipeline did not see
 * (no call record) gets a note of its own. A style that forks the call's fiber itself gives the note
 * as the fiber is made instead (`callRefs`).
 */
export const withinCall = (call: Call | undefined, requestId: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  underCallSpan(call)(Effect.zipRight(FiberRef.set(CurrentCallNote, noteOf(call, requestId)), effect))

/** A call's Effect under its server span, when it is traced: the parent of everything it runs. */
export const underCallSpan = (call: Call | undefined) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  call?.span === undefined ? effect : Effect.withParentSpan(effect, call.span)

/**
 * `withinCall`'s note for a style that forks the call's fiber itself (`Runtime.runFork(runtime)(
 * underCallSpan(call)(effect), callRefs(call, requestId))`): given to the fiber's locals as the fiber
 * is made, rather than set by a first step of the fiber (a FiberRef.set after a zipRight: two
 * Effects and their steps fewer on every call). The locals are copied here as FiberRef.set copies
 * them: the runtime's, made the fiber's own by runFork, are not this function's to change.
 */
export const callRefs = (call: Call | undefined, requestId: string): Runtime.RunForkOptions => {
  const note = noteOf(call, requestId)
  return { updateRefs: (refs, fiberId) => FiberRefs.updateAs(refs, { fiberId, fiberRef: CurrentCallNote, value: note }) }
}

/**
 * An error logged during a call with its request id as a log annotation too: for loggers other
 * than the process's (a test's), which see only annotations.
 */
export const logCallError = (message: string, cause: Cause.Cause<unknown>) =>
  Effect.flatMap(FiberRef.get(CurrentCallNote), (note) =>
    note === undefined
      ? Effect.logError(message, cause)
      : Effect.annotateLogs(Effect.logError(message, cause), "requestId", note.requestId))
