import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { connectClients } from "../e2e/support/connectClient.js"
import { grpcJsClient } from "../e2e/support/grpcJsClient.js"
import { stopProcess } from "../e2e/support/Processes.js"
import { StyleError } from "../e2e/support/StyleClient.js"
import { restStyle } from "../e2e/support/restClient.js"
import { persistentDeployment } from "../support/Deployment.js"
import { recordFigures } from "../support/Figures.js"
import { runLoad, unreadable } from "../support/Load.js"
import { testDatabaseKind } from "../support/TestDatabase.js"

describe(`SIGTERM under load (${testDatabaseKind})`, () => {
  it.live("requests in flight complete, new ones are refused cleanly, the process exits 0", () =>
    Effect.gen(function*() {
      const deployment = yield* persistentDeployment
      const running = yield* Effect.promise(deployment.start)
      // gRPC through @grpc/grpc-js: connect-node 2.1's HTTP/2 client can throw an uncaught error
      // when a server's GOAWAY reaches a session with no open streams, which a shutdown provokes.
      const clients = [connectClients[0]!, connectClients[5]!, restStyle].map((s) => s.make(deployment.urls))
      clients.push(grpcJsClient(deployment.urls))

      let signalled = false
      let exited = false
      const answersAfterSignal: Array<string> = []
      const load = runLoad({
        clients,
        concurrency: 32,
        mix: ["createOrg", "workflow", "readBack"],
        running: () => !exited,
        onFailure: (error) => {
          // Before the signal nothing may fail. After it, a call may only fail to connect: a reply
          // with an error code would mean a request was accepted and then dropped or broken.
          if (!signalled) return "count"
          const answered = error instanceof StyleError &&
            !/ECONNREFUSED|ECONNRESET|EPIPE|socket|fetch failed|closed|GOAWAY|connect/i.test(error.message)
          if (answered) answersAfterSignal.push(`${error.code} ${error.message}`)
          return answered ? "count" : "ignore"
        }
      })
      yield* Effect.sleep("2 seconds")
      signalled = true
      const exitCode = yield* Effect.promise(() => stopProcess(running))
      exited = true
      const result = yield* Effect.promise(() => load)

      // Restart on the same database: every acknowledged create is there.
      const restarted = yield* Effect.promise(deployment.start)
      const missing = yield* Effect.promise(() => unreadable(clients[0]!, result.acknowledged))
      clients.forEach((client) => client.close?.())
      expect(yield* Effect.promise(() => stopProcess(restarted))).toBe(0)
      recordFigures(`sigterm-${deployment.kind}`, {
        concurrentClients: 32,
        requests: result.requests,
        acknowledgedCreates: result.acknowledged.length,
        failedRequests: result.failures.length,
        errorRepliesAfterSignal: answersAfterSignal.length,
        exitCode,
        unreadableAcknowledged: missing.length
      })
      expect(exitCode).toBe(0)
      expect(result.failures).toEqual([])
      expect(result.acknowledged.length).toBeGreaterThan(0)
      expect(missing).toEqual([])
    }).pipe(Effect.scoped), 120_000)
})
