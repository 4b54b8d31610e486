import { describe, expect, it } from "@effect/vitest"
import { Effect, Logger } from "effect"
import { jsonLogger, prettyLogger } from "../../src/main/Logging.js"
import { CurrentCallNote } from "../../src/operations/Operation.js"
import { accessLineWriter } from "../../src/transports/http/AccessLine.js"

/** Runs `effect` with the JSON logger of service "org", and gives back what it wrote, line by line. */
const logged = (effect: Effect.Effect<unknown>) =>
  Effect.gen(function*() {
    const lines: Array<string> = []
    yield* effect.pipe(
      Effect.provide(Logger.replace(Logger.defaultLogger, jsonLogger("org", (line) => lines.push(line)))),
      Effect.exit
    )
    return lines
  })

describe("LOG_FORMAT=json", () => {
  it.effect("writes one JSON object per line: time, level, message, service, the call's annotations", () =>
    Effect.gen(function*() {
      const lines = yield* logged(
        Effect.logInfo("org: listening on", "http://127.0.0.1:9090").pipe(Effect.annotateLogs("requestId", "r-1"))
      )
      expect(lines).toHaveLength(1)
      expect(lines[0]!.endsWith("\n")).toBe(true)
      expect(lines[0]!.slice(0, -1)).not.toContain("\n")
      const line = JSON.parse(lines[0]!)
      expect(line).toEqual({
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        level: "info",
        message: "org: listening on http://127.0.0.1:9090",
        service: "org",
        requestId: "r-1"
      })
    }))

  it.effect("a line written during a call carries the call's request id (from its note, not an annotation)", () =>
    Effect.gen(function*() {
      const note = { requestId: "r-2", operation: undefined, outcome: undefined, traced: false, operationSpans: false, failure: undefined }
      const lines = yield* logged(Effect.logInfo("inside").pipe(Effect.locally(CurrentCallNote, note)))
      expect(JSON.parse(lines[0]!)).toMatchObject({ message: "inside", requestId: "r-2" })
    }))

  it("an access line, written from its fields, has the access fields in the documented order", () => {
    const lines: Array<string> = []
    const write = accessLineWriter(jsonLogger("org", (line) => lines.push(line)))!
    const fields = {
      message: "GET /orgs/x 400 invalid_argument",
      requestId: "r-3",
      style: "rest",
      operation: "GetOrg",
      method: "GET",
      path: "/orgs/x",
      status: 400,
      code: "invalid_argument",
      durationMs: 3.8
    }
    write({ ...fields, traceId: undefined, spanId: undefined })
    write({ ...fields, traceId: "t", spanId: "s" })
    const [untraced, traced] = lines.map((line) => JSON.parse(line))
    const { message, ...rest } = fields
    expect(Object.keys(untraced)).toEqual(["time", "level", "message", "service", "access", ...Object.keys(rest)])
    expect(untraced).toEqual({
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      level: "info",
      message,
      service: "org",
      access: true,
      ...rest
    })
    expect(traced).toMatchObject({ requestId: "r-3", traceId: "t", spanId: "s", code: "invalid_argument" })
  })

  it("in pretty mode (a terminal) an access line is one line, its fields in words", () => {
    const lines: Array<string> = []
    const write = accessLineWriter(prettyLogger((line) => lines.push(line)))!
    write({
      message: "POST /orgs/x 200 ok",
      requestId: "r-4",
      style: "rest",
      operation: "CreateOrg",
      method: "POST",
      path: "/orgs/x",
      status: 200,
      code: "ok",
      durationMs: 2.1,
      traceId: undefined,
      spanId: undefined
    })
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO access: POST \/orgs\/x 200 ok 2\.1 ms \(rest CreateOrg, request r-4\)\n$/)
  })

  it.effect("a failure's cause is one string field of the same line, its stack included", () =>
    Effect.gen(function*() {
      const lines = yield* logged(Effect.logError("REST call failed", new Error("boom\nsecond line")).pipe(
        Effect.zipRight(Effect.dieMessage("defect").pipe(Effect.tapErrorCause((cause) => Effect.logWarning("failed", cause))))
      ))
      expect(lines).toHaveLength(2)
      const [error, warning] = lines.map((line) => JSON.parse(line))
      expect(error).toMatchObject({ level: "error", message: "REST call failed boom\nsecond line" })
      expect(warning).toMatchObject({ level: "warning", message: "failed", cause: expect.stringContaining("defect") })
    }))

  it.effect("log spans give their duration in ms", () =>
    Effect.gen(function*() {
      const lines = yield* logged(Effect.logInfo("migrated").pipe(Effect.withLogSpan("migration")))
      expect(JSON.parse(lines[0]!)).toMatchObject({ message: "migrated", migrationMs: expect.any(Number) })
    }))
})
