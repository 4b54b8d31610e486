import { SqlError } from "@effect/sql/SqlError"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { databaseOperation } from "../../src/services/database/Transient.js"
import { recordingTracer } from "../support/RecordingTracer.js"

/** A statement that fails with `codes` in turn (as @effect/sql-pg reports PostgreSQL's errors), then answers. */
const failingWith = (codes: ReadonlyArray<string>) => {
  let calls = 0
  return Effect.suspend(() => {
    const code = codes[calls++]
    return code === undefined
      ? Effect.succeed("row")
      : Effect.fail(new SqlError({ cause: Object.assign(new Error("could not serialize access"), { code }), message: "failed" }))
  })
}

const traced = (codes: ReadonlyArray<string>) => {
  const { spans, tracer } = recordingTracer()
  const run = Effect.withSpan(databaseOperation(failingWith(codes)), "GetOrg").pipe(Effect.withTracer(tracer), Effect.exit)
  return Effect.map(run, (exit) => ({ exit, spans }))
}

describe("a unit of work's attempts, as a trace shows them", () => {
  it.live("answered at the first attempt: the operation's span alone, no attempt span repeating it", () =>
    Effect.gen(function*() {
      const { exit, spans } = yield* traced([])
      expect(Exit.isSuccess(exit)).toBe(true)
      expect(spans.map((span) => span.name)).toEqual(["GetOrg"])
      expect(spans[0]!.events).toEqual([])
    }))

  it.live("retried once: the first failure an event on the operation's span, the retry a span of its own", () =>
    Effect.gen(function*() {
      const { exit, spans } = yield* traced(["40001"])
      expect(Exit.isSuccess(exit)).toBe(true)
      expect(spans.map((span) => [span.name, span.parent])).toEqual([["GetOrg", undefined], ["database attempt", "GetOrg"]])
      const [operation, retry] = spans
      expect(operation!.events).toEqual([{ name: "database attempt failed", attributes: { "db.response.status_code": "40001" } }])
      expect(operation!.attributes.has("db.response.status_code")).toBe(false)
      expect(retry!.failed).toBe(false)
    }))

  it.live("every retry failing: each retry's span ends failed with the SQLSTATE that ended it", () =>
    Effect.gen(function*() {
      const { exit, spans } = yield* traced(["40001", "40P01", "57P01", "40001", "40001", "40001"])
      expect(Exit.isFailure(exit)).toBe(true)
      const retries = spans.filter((span) => span.name === "database attempt")
      // The schedule's five retries after the first attempt.
      expect(retries).toHaveLength(5)
      expect(retries.map((span) => span.attributes.get("db.response.status_code"))).toEqual(["40P01", "57P01", "40001", "40001", "40001"])
      expect(retries.every((span) => span.failed === true && span.parent === "GetOrg")).toBe(true)
      expect(spans.find((span) => span.name === "GetOrg")!.events.map((event) => event.attributes)).toEqual([
        { "db.response.status_code": "40001" }
      ])
    }))
})
