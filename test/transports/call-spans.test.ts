import { describe, expect, layer } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Logger } from "effect"
import { randomUUID } from "node:crypto"
import { Unavailable } from "../../src/domain/Errors.js"
import { Orgs } from "../../src/services/Orgs.js"
import { httpCall } from "../reliability/support/wire.js"
import { InMemoryServices, inProcessServers } from "../support/InProcessServers.js"
import { type Recorded, recordingTracer } from "../support/RecordingTracer.js"
import { Services } from "../support/Services.js"

/**
 * A call of one operation has its server span stand for that operation (docs/observability.md):
 * no span of the operation's own, and what it would have said of a failure on the server span.
 * The ports run in this process with a tracer that keeps every span; the OTLP export itself is
 * test/e2e/traces.test.ts's.
 */
const traced = { otlp: { traces: true, metrics: false, metricsIntervalMillis: 60_000 } }

const failing = (fail: Effect.Effect<never, Unavailable>) =>
  Layer.merge(InMemoryServices, Layer.succeed(Orgs, Orgs.make({ create: () => fail, get: () => fail, list: () => fail })))

/** The server spans of the calls made by `calls`, once each has ended (a span ends after its answer is written). */
const serverSpansOf = (spans: ReadonlyArray<Recorded>, calls: () => Promise<unknown>) =>
  Effect.gen(function*() {
    const before = spans.length
    yield* Effect.promise(calls)
    const made = () => spans.slice(before)
    // A ceiling for a span that never ends, not an expectation.
    for (let attempt = 0; attempt < 200 && made().some((span) => span.exit === undefined); attempt++) {
      yield* Effect.sleep("10 millis")
    }
    expect(made().map((span) => span.name).filter((name) => name === "GetOrg")).toEqual([])
    return made().filter((span) => span.kind === "server")
  })

const getOrg = (base: string) => [
  () => httpCall(`${base}/orgs/${randomUUID()}`),
  () =>
    httpCall(`${base}/org.v1beta1.OrgService/GetOrg`, {
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id: randomUUID() })
    })
] as const

describe("the server span of a call of one operation", () => {
  const refused = recordingTracer()
  layer(inProcessServers(traced).pipe(Layer.provide(Layer.setTracer(refused.tracer))), {
    timeout: 120_000,
    excludeTestServices: true
  })((it) => {
    it.effect("a refusal: an exception event with its tag and message, the span's status not an error", () =>
      Effect.gen(function*() {
        const { org } = yield* Services
        for (const call of getOrg(org)) {
          const [server] = yield* serverSpansOf(refused.spans, call)
          expect(server!.attributes.get("onboarding.code")).toBe("not_found")
          expect(server!.failed).toBe(false)
          expect(server!.events).toEqual([{
            name: "exception",
            attributes: { "exception.type": "NotFound", "exception.message": expect.stringMatching(/not found/i) }
          }])
        }
      }))
  })

  const unavailable = recordingTracer()
  layer(
    inProcessServers(traced, failing(Effect.fail(new Unavailable({ message: "the database is unavailable" })))).pipe(
      Layer.provide(Layer.setTracer(unavailable.tracer))
    ),
    { timeout: 120_000, excludeTestServices: true }
  )((it) => {
    it.effect("a fault: the span ends failed with the operation's own failure, no second account of it", () =>
      Effect.gen(function*() {
        const { org } = yield* Services
        for (const call of getOrg(org)) {
          const [server] = yield* serverSpansOf(unavailable.spans, call)
          expect(server!.attributes.get("onboarding.code")).toBe("unavailable")
          expect(server!.events).toEqual([])
          const exit = server!.exit!
          expect(Exit.isFailure(exit) && Cause.squash(exit.cause)).toBeInstanceOf(Unavailable)
        }
      }))
  })

  const bug = recordingTracer()
  const cause = new Error("relation \"orgs\" does not exist")
  layer(
    inProcessServers(traced, failing(Effect.die(new Error("a bug", { cause })))).pipe(
      Layer.provide(Layer.setTracer(bug.tracer)),
      // The bug is logged (security.test.ts checks that); here the log is not the point.
      Layer.provide(Logger.replace(Logger.defaultLogger, Logger.none))
    ),
    { timeout: 120_000, excludeTestServices: true }
  )((it) => {
    it.effect("a bug: the span ends with the defect itself, its cause and all, not only its code", () =>
      Effect.gen(function*() {
        const { org } = yield* Services
        for (const call of getOrg(org)) {
          const [server] = yield* serverSpansOf(bug.spans, call)
          expect(server!.attributes.get("onboarding.code")).toBe("internal")
          const exit = server!.exit!
          const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
          expect(defect).toBeInstanceOf(Error)
          expect((defect as Error).cause).toBe(cause)
        }
      }))
  })
})
