import { Effect, Layer } from "effect"
import { Services } from "../../support/Services.js"
import { freshServerDatabase, serverUrl } from "../../support/TestDatabase.js"
import { freePort, startProcess, stopProcess } from "./Processes.js"

const managed = (entry: string, env: Record<string, string>, listeners: number) =>
  Effect.acquireRelease(
    Effect.promise(() => startProcess(entry, env, listeners)),
    (running) => Effect.promise(() => stopProcess(running))
  )

const url = (port: number) => `http://127.0.0.1:${port}`

/**
 * The services as users run them: with `TEST_DATABASE_URL`, the four per-service processes on
 * one fresh PostgreSQL database (the production shape); without it, the all-in-one process on
 * the embedded in-memory database (`npm start`).
 */
const start = Effect.gen(function*() {
  const [org, profile, license, workflow] = yield* Effect.promise(() =>
    Promise.all([freePort(), freePort(), freePort(), freePort()])
  )
  if (serverUrl === undefined) {
    yield* managed("all", {
      DATA_DIR: "memory://",
      ORG_PORT: String(org),
      PROFILE_PORT: String(profile),
      LICENSE_PORT: String(license),
      WORKFLOW_PORT: String(workflow)
    }, 4)
  } else {
    const database = yield* freshServerDatabase(serverUrl)
    const ports = { org, profile, license, workflow }
    // All four at once against an empty database: they race to migrate it, as in a real roll-out.
    yield* Effect.forEach(
      Object.entries(ports),
      ([name, port]) => managed(name, { DATABASE_URL: database.url, PORT: String(port), DATABASE_POOL_SIZE: "4" }, 1),
      { concurrency: "unbounded" }
    )
  }
  return { org: url(org), profile: url(profile), license: url(license), workflow: url(workflow) }
})

export const ServicesLive = Layer.scoped(Services, start)

export const deployment = serverUrl === undefined ? "all-in-one process, embedded database" : "four processes, PostgreSQL"
