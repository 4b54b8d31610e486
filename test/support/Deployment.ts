import { Effect, type Scope } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort, type Running, startProcess } from "../e2e/support/Processes.js"
import type { ServiceUrls } from "../e2e/support/StyleClient.js"
import { serveEmbeddedPostgres } from "./EmbeddedServer.js"
import { freshServerDatabase, serverUrl } from "./TestDatabase.js"

/**
 * The all-in-one process on a database that outlives it (a temporary data directory, or a fresh
 * PostgreSQL database), so a test can stop, kill or restart the process and look at what stayed.
 */
export const persistentDeployment = Effect.gen(function*() {
  const ports = yield* Effect.promise(() => Promise.all([freePort(), freePort(), freePort(), freePort()]))
  let database: Record<string, string>
  /** A URL to the stored data, for a look at it in SQL: on the embedded database, only once the process has stopped (it holds the directory). */
  let stored: Effect.Effect<string, unknown, Scope.Scope>
  if (serverUrl === undefined) {
    const dataDir = mkdtempSync(join(tmpdir(), "onboarding-data-"))
    yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
    database = { DATA_DIR: dataDir }
    stored = Effect.map(serveEmbeddedPostgres(dataDir), ({ host, port }) => `postgres://postgres@${host}:${port}/postgres`)
  } else {
    const url = (yield* freshServerDatabase(serverUrl)).url
    database = { DATABASE_URL: url }
    stored = Effect.succeed(url)
  }
  const env = {
    ...database,
    ORG_PORT: String(ports[0]),
    PROFILE_PORT: String(ports[1]),
    LICENSE_PORT: String(ports[2]),
    WORKFLOW_PORT: String(ports[3])
  }
  const urls: ServiceUrls = {
    org: `http://127.0.0.1:${ports[0]}`,
    profile: `http://127.0.0.1:${ports[1]}`,
    license: `http://127.0.0.1:${ports[2]}`,
    workflow: `http://127.0.0.1:${ports[3]}`
  }
  return { urls, start: (): Promise<Running> => startProcess("all", env, 4), kind: serverUrl === undefined ? "embedded" : "postgresql", stored }
})
