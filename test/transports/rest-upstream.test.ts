import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpServer from "@effect/platform/HttpServer"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"

/**
 * Why the REST writes stay `handleRaw` (src/transports/rest/RestHandlers.ts), shown on
 * @effect/platform's own HttpApi server (`HttpApiBuilder` and `.handle`, nothing of ours): an
 * endpoint's path, then its body, are each decoded by the platform apart, before the handler,
 * and the body is read by the platform itself. If an upgrade changes one of these, its
 * expectation here fails: then the writes may become `.handle`. Checked against
 * @effect/platform 0.97.2.
 */

const Strict = { parseOptions: { errors: "all", onExcessProperty: "error" } } as const

class Things extends HttpApiGroup.make("things").add(
  HttpApiEndpoint.put("putThing", "/things/:id")
    .setPath(Schema.Struct({ id: Schema.UUID }).annotations(Strict))
    .setPayload(Schema.Struct({ name: Schema.NonEmptyString }).annotations(Strict))
    .addSuccess(Schema.Struct({ id: Schema.String, name: Schema.String }))
) {}
class ThingApi extends HttpApi.make("things").add(Things) {}

const ThingsLive = HttpApiBuilder.group(ThingApi, "things", (handlers) =>
  handlers.handle("putThing", ({ path, payload }) => Effect.succeed({ id: path.id, name: payload.name })))

/** One PUT /things/<id> with `body`, answered by the bare platform: its status and JSON (or text). */
const upstream = (id: string, body: string) =>
  Effect.acquireUseRelease(
    Effect.sync(() =>
      HttpApiBuilder.toWebHandler(
        Layer.mergeAll(HttpApiBuilder.api(ThingApi).pipe(Layer.provide(ThingsLive)), HttpServer.layerContext)
      )
    ),
    ({ handler }) =>
      Effect.promise(async () => {
        const response = await handler(
          new Request(`http://localhost/things/${id}`, { method: "PUT", headers: { "content-type": "application/json" }, body })
        )
        const text = await response.text()
        let json: unknown
        try {
          json = JSON.parse(text)
        } catch {
          json = text
        }
        return { status: response.status, json }
      }),
    ({ dispose }) => Effect.promise(dispose)
  )

const id = "6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b"

describe("@effect/platform HttpApi upstream (why the REST writes are handleRaw)", () => {
  it.live("a well-formed write reaches its handler decoded (the harness works)", () =>
    Effect.gen(function*() {
      expect(yield* upstream(id, `{"name":"Acme"}`)).toEqual({ status: 200, json: { id, name: "Acme" } })
    }))

  it.live("the path is decoded before the body and apart from it: a bad id and a bad field are never named in one answer", () =>
    Effect.gen(function*() {
      // Every other style (and REST today, through the operation's one decode) names both:
      // `id: must be a UUID …; name: must not be blank`.
      const answer = yield* upstream("not-a-uuid", `{"name":""}`)
      expect(answer.status).toBe(400)
      const issues = (answer.json as { readonly issues: ReadonlyArray<{ readonly path: ReadonlyArray<string> }> }).issues
      expect(issues.map((issue) => issue.path.join("."))).toEqual(["id"])
    }))

  it.live("the platform reads the body itself: a body that is not JSON is its own empty 400, before any handler or error schema", () =>
    Effect.gen(function*() {
      // `.handle`'s decode reads the body with the platform's `request.json` (`Effect.orDie`), after
      // the endpoint's middleware: the JsonBodyReader, which answers 400, 413, 415 and the JSON
      // bounds in the REST error body, must read the body first, and the platform has no way to
      // be handed the body it read.
      expect(yield* upstream(id, "{")).toEqual({ status: 400, json: "" })
    }))
})
