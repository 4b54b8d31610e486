import * as HttpApp from "@effect/platform/HttpApp"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, HashMap, Layer, Logger, Option } from "effect"
import { OrgOperationsLive } from "../../src/operations/OrgOperationsLive.js"
import { InMemoryServices } from "../../src/services/InMemoryServices.js"
import { OrgHttpApi } from "../../src/contract/HttpApis.js"
import { platformServices, restApp } from "../../src/transports/rest/RestApp.js"
import { OrgRestLive } from "../../src/transports/rest/RestHandlers.js"

/**
 * A defect that reaches the platform's handler outside any operation (a web Request built from
 * node:http2's headers threw one in /rpc) is not an empty 500 with nothing logged: one error line
 * with its cause and request id, and the REST error body of `internal`, no detail on the wire.
 */
describe("a defect at the platform's edge", () => {
  it.effect("is logged once with its cause and answered as internal", () =>
    Effect.gen(function*() {
      const logged: Array<{ message: string; cause: string; requestId: unknown }> = []
      const logger = Logger.make(({ annotations, cause, message }) => {
        logged.push({
          message: String(message),
          cause: Cause.pretty(cause),
          requestId: HashMap.get(annotations, "requestId").pipe(Option.getOrUndefined)
        })
      })
      const context = Layer.mergeAll(platformServices, OrgOperationsLive.pipe(Layer.provide(InMemoryServices)), Logger.replace(Logger.defaultLogger, logger))
      const app = yield* restApp(OrgHttpApi, OrgRestLive, Effect.die(new Error("the edge broke"))).pipe(Effect.provide(context))
      const runtime = yield* Effect.runtime<never>().pipe(Effect.provide(context))
      const handler = HttpApp.toWebHandlerRuntime(runtime as never)(app as never)
      const response = yield* Effect.promise(() =>
        handler(new Request("http://127.0.0.1/rpc", { method: "POST", headers: { "x-request-id": "edge-1" }, body: "{}" }))
      )
      expect({ status: response.status, body: yield* Effect.promise(() => response.json()) }).toEqual({
        status: 500,
        body: { code: 13, message: "internal error", details: [] }
      })
      expect(logged.map(({ message, requestId }) => ({ message, requestId }))).toEqual([{ message: "HTTP call failed", requestId: "edge-1" }])
      expect(logged[0]!.cause).toContain("the edge broke")
    }).pipe(Effect.scoped))
})
