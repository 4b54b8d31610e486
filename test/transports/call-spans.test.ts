import { describe, expect, layer } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Logger } from "effect"
import { randomUUID } from "node:crypto"
import { Unavailable } from "../../src/domain/Errors.js"
import { httpCall } from "../reliability/support/wire.js"
import { failingOrgs, InMemoryServices, inProcessServers } from "../support/InProcessServers.js"
import { type Recorded, recordingTracer } from "../support/RecordingTracer.js"
import { Services } from "../support/Services.js"

/**
 * A call of one operation has its server span stand for that operation (docs/observability.md):
 * no span of the operation's own, and what it would have said of a failure on the server span.
 * The ports run in this process with a tracer that keeps every span; the OTLP export itself is
 * test/e2e/traces.test.ts's.
 */
const tracedPorts = (services: typeof InMemoryServices) => {
  const { spans, tracer } = recordingTracer()
  const ports = inProcessServers({ otlp: { traces: true, metrics: false, metricsIntervalMillis: 60_000 } }, services).pipe(
    Layer.provide(Layer.setTracer(tracer)),
    // A bug is logged (security.test.ts checks that); here the log is not the point.
    Layer.provide(Logger.replace(Logger.defaultLogger, Logger.none))
  )
  return { spans, ports }
}

/** The server span of each GetOrg call, over REST and Connect, once each has ended (after its answer is written). */
const serverSpans = (spans: ReadonlyArray<Recorded>) =>
  Effect.gen(function*() {
    const { org } = yield* Services
    const calls = [
      () => httpCall(`${org}/orgs/${randomUUID()}`),
      () =>
        httpCall(`${org}/org.v1beta1.OrgService/GetOrg`, {
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ id: randomUUID() })
        })
    ]
    const found: Array<Recorded> = []
    for (const call of calls) {
      const before = spans.length
      yield* Effect.promise(call)
      const made = () => spans.slice(before)
      // A ceiling for a span that never ends (60 s, as traces.test.ts waits), not an expectation.
      for (let attempt = 0; attempt < 6_000 && made().some((span) => span.exit === undefined); attempt++) {
        yield* Effect.sleep("10 millis")
      }
      expect(made().filter((span) => span.name === "GetOrg")).toEqual([])
      found.push(...made().filter((span) => span.kind === "server"))
    }
    expect(found).toHaveLength(calls.length)
    return found
  })

const failureOf = (span: Recorded) => {
  const exit = span.exit
  return exit !== undefined && Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
}

describe("the server span of a call of one operation", () => {
  const refused = tracedPorts(InMemoryServices)
  layer(refused.ports, { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("a refusal: an exception event with its tag and message, the span's status not an error", () =>
      Effect.gen(function*() {
        for (const server of yield* serverSpans(refused.spans)) {
          expect(server.attributes.get("onboarding.code")).toBe("not_found")
          expect(server.failed).toBe(false)
          expect(server.events).toEqual([{
            name: "exception",
            attributes: { "exception.type": "NotFound", "exception.message": expect.stringMatching(/not found/i) }
          }])
        }
      }))
  })

  const unavailable = tracedPorts(failingOrgs(Effect.fail(new Unavailable({ message: "the database is unavailable" }))))
  layer(unavailable.ports, { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("a fault: the span ends failed with the operation's own failure, no second account of it", () =>
      Effect.gen(function*() {
        for (const server of yield* serverSpans(unavailable.spans)) {
          expect(server.attributes.get("onboarding.code")).toBe("unavailable")
          expect(server.events).toEqual([])
          expect(failureOf(server)).toBeInstanceOf(Unavailable)
        }
      }))
  })

  const cause = new Error("relation \"orgs\" does not exist")
  const bug = tracedPorts(failingOrgs(Effect.die(new Error("a bug", { cause }))))
  layer(bug.ports, { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("a bug: the span ends with the defect itself, its cause and all, not only its code", () =>
      Effect.gen(function*() {
        for (const server of yield* serverSpans(bug.spans)) {
          expect(server.attributes.get("onboarding.code")).toBe("internal")
          const defect = failureOf(server)
          expect(defect).toBeInstanceOf(Error)
          expect((defect as Error).cause).toBe(cause)
        }
      }))
  })
})
