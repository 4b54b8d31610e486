import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Rpc from "@effect/rpc/Rpc"
import * as RpcGroup from "@effect/rpc/RpcGroup"
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import * as RpcServer from "@effect/rpc/RpcServer"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"

/**
 * The @effect/rpc behaviours that src/transports/rpc/corrections/ corrects (one module each),
 * shown on @effect/rpc's own HTTP server (`RpcServer.toHttpApp` with its JSON serialization and
 * nothing of ours). Its middleware (RpcMiddleware) runs per procedure call, after the frame and
 * the payload are decoded, so none of these can be corrected there. If an upgrade fixes or changes
 * one, its expectation here fails: then the correction must go (or change). Checked against
 * @effect/rpc 0.76.2.
 */

class Echo extends RpcGroup.make(
  Rpc.make("Echo", { payload: { name: Schema.String }, success: Schema.String }),
  Rpc.make("Fail", { payload: {}, success: Schema.String })
) {}

const handlers = Echo.toLayer({
  Echo: ({ name }) => Effect.succeed(name),
  Fail: () => Effect.die(new Error("select secret from passwords: connection refused"))
})

/** One POST /rpc with `body`, answered by the bare server: the answer's text. */
const upstream = (body: string | Uint8Array) =>
  Effect.gen(function*() {
    const app = yield* RpcServer.toHttpApp(Echo)
    const request = HttpServerRequest.fromWeb(
      new Request("http://localhost/rpc", { method: "POST", headers: { "content-type": "application/json" }, body })
    )
    const response = yield* Effect.provideService(app, HttpServerRequest.HttpServerRequest, request)
    return yield* Effect.promise(() => HttpServerResponse.toWeb(response).text())
  }).pipe(Effect.scoped, Effect.provide(RpcSerialization.layerJson), Effect.provide(handlers))

const frame = (tag: string, payload: unknown) => JSON.stringify({ _tag: "Request", id: "1", tag, payload, headers: [] })

describe("@effect/rpc upstream (what rpc/corrections/ corrects)", () => {
  it.live("a well-formed frame is answered with its Exit (the harness works)", () =>
    Effect.gen(function*() {
      expect(JSON.parse(yield* upstream(frame("Echo", { name: "Acme" })))).toMatchObject([{ _tag: "Exit", exit: { _tag: "Success", value: "Acme" } }])
    }))

  it.live("unreadableFrames: a body that is not JSON is answered with a Defect carrying the parser's own text", () =>
    Effect.gen(function*() {
      const answer = yield* upstream("{")
      expect(answer).toContain("Defect")
      expect(answer).toMatch(/JSON/)
    }))

  it.live("unreadableFrames: bytes that are not UTF-8 reach the handler as U+FFFD", () =>
    Effect.gen(function*() {
      // The frame with one byte that is not UTF-8 inside the name: `"name":"Ac\xff"`.
      const body = Buffer.concat([
        Buffer.from(`{"_tag":"Request","id":"1","tag":"Echo","payload":{"name":"Ac`),
        Buffer.from([0xff]),
        Buffer.from(`"},"headers":[]}`)
      ])
      expect(JSON.parse(yield* upstream(body))).toMatchObject([{ _tag: "Exit", exit: { _tag: "Success", value: "Ac\uFFFD" } }])
    }))

  it.live("malformedPayloads: a payload of the wrong shape is a Defect with the schema's text, not a typed failure", () =>
    Effect.gen(function*() {
      const answer = yield* upstream(frame("Echo", { name: 5 }))
      expect(answer).not.toContain(`"Fail"`)
      expect(answer).toMatch(/Expected string, actual 5/)
    }))

  it.live("defectDetail: a handler's defect reaches the wire with its text", () =>
    Effect.gen(function*() {
      expect(yield* upstream(frame("Fail", {}))).toContain("select secret from passwords")
    }))
})
