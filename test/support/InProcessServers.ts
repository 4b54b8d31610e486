import { Effect, Layer } from "effect"
import { defaultSettings, servePort, type Settings } from "../../src/main/Process.js"
import { license, org, profile, workflow } from "../../src/main/ServicePorts.js"
import { DatabaseHealth } from "../../src/services/DatabaseHealth.js"
import { Licenses } from "../../src/services/Licenses.js"
import { Onboarding } from "../../src/services/Onboarding.js"
import { Orgs } from "../../src/services/Orgs.js"
import { Profiles } from "../../src/services/Profiles.js"
import { LicenseOperationsLive } from "../../src/operations/LicenseOperations.js"
import { OrgOperationsLive } from "../../src/operations/OrgOperations.js"
import { ProfileOperationsLive } from "../../src/operations/ProfileOperations.js"
import { WorkflowOperationsLive } from "../../src/operations/WorkflowOperations.js"
import { Services } from "../e2e/support/Servers.js"
import { TestDatabase } from "./TestDatabase.js"

/** The real services of every port, over the test database. */
export const AllServices = Layer.mergeAll(
  Orgs.Default,
  Profiles.Default,
  Licenses.Default,
  Onboarding.Default,
  DatabaseHealth.Default
)

/**
 * The four service ports served in this process, on ephemeral loopback ports, with the same code
 * as the real processes (listener, protocols, dispatch) but with the test database in reach, so a
 * test can count rows. `Services` holds their URLs; `SqlClient` the database. `services` may
 * replace the real services (a failing layer, say).
 */
export const inProcessServers = (
  overrides: Partial<Settings> = {},
  services: Layer.Layer<Layer.Layer.Success<typeof AllServices>, never, Layer.Layer.Context<typeof AllServices>> =
    AllServices
) => {
  const settings: Settings = { ...defaultSettings, shutdownGraceMillis: 1_000, ...overrides }
  const urls = Effect.gen(function*() {
    const url = (listener: { readonly port: number }) => `http://127.0.0.1:${listener.port}`
    return {
      org: url(yield* servePort(org, 0, settings)),
      profile: url(yield* servePort(profile, 0, settings)),
      license: url(yield* servePort(license, 0, settings)),
      workflow: url(yield* servePort(workflow, 0, settings))
    }
  })
  return Layer.scoped(Services, urls).pipe(
    Layer.provide(Layer.mergeAll(OrgOperationsLive, ProfileOperationsLive, LicenseOperationsLive, WorkflowOperationsLive)),
    Layer.provideMerge(services),
    Layer.provideMerge(TestDatabase)
  )
}
