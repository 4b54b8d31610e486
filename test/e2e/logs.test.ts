import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import pg from "pg"
import { freshServerDatabase, serverUrl } from "../support/TestDatabase.js"
import { otlpReceiver } from "./support/OtlpReceiver.js"
import { freePort, startProcess, stopProcess } from "./support/Processes.js"

/**
 * A per-service process on PostgreSQL, traced, whose table is dropped under it: the failed call's
 * lines (the failure with its cause, and the access line) share its request id and trace id, and
 * no line anywhere holds the password in DATABASE_URL. PostgreSQL only (TEST_DATABASE_URL): the
 * embedded database cannot be reached from outside to break it.
 */
describe.skipIf(serverUrl === undefined)("logs of a per-service process", () => {
  it.live("a failed call's lines share its request id and trace id; the database password is in none", () =>
    Effect.gen(function*() {
      const receiver = yield* Effect.acquireRelease(Effect.promise(otlpReceiver), (r) => Effect.promise(r.close))
      const database = yield* freshServerDatabase(serverUrl!)
      const password = "S3cret-Passw0rd-never-logged"
      const url = new URL(database.url)
      if (url.username === "") url.username = "postgres"
      url.password = password // trust authentication ignores it; the process still holds it
      const port = yield* Effect.promise(freePort)
      const running = yield* Effect.promise(() =>
        startProcess("org", {
          DATABASE_URL: url.toString(),
          PORT: String(port),
          LOG_LEVEL: "debug",
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url
        }, 1)
      )
      const admin = new pg.Client({ connectionString: database.url })
      yield* Effect.promise(async () => {
        await admin.connect()
        await admin.query("drop table orgs cascade")
        await admin.end()
      })
      const reply = yield* Effect.promise(() =>
        fetch(`http://127.0.0.1:${port}/orgs/${crypto.randomUUID()}`, { headers: { "x-request-id": "broken-call-1" } })
      )
      expect(reply.status).toBe(500)
      expect(yield* Effect.promise(() => stopProcess(running))).toBe(0)

      const lines = running.output().split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as Record<string, unknown>)
      expect(running.output()).not.toContain(password)
      expect(lines.some((line) => String(line["message"]).includes("***@"))).toBe(true) // the database, password masked
      const call = lines.filter((line) => line["requestId"] === "broken-call-1")
      expect(call.map((line) => line["level"]).sort()).toEqual(["error", "info"]) // the failure, the access line
      const failure = call.find((line) => line["level"] === "error")!
      expect(failure["cause"]).toEqual(expect.stringContaining("orgs"))
      const traceIds = new Set(call.map((line) => line["traceId"]))
      expect(traceIds.size).toBe(1)
      expect([...traceIds][0]).toMatch(/^[0-9a-f]{32}$/)
      expect(reply.headers.get("traceresponse")).toContain([...traceIds][0])
    }).pipe(Effect.scoped), 60_000)
})
