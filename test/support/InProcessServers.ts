import { Effect, Layer } from "effect"
import { servePort, Settings } from "../../src/main/Process.js"
import type { SettingsValues } from "../../src/main/Settings.js"
import { license, org, profile, workflow } from "../../src/main/ServicePorts.js"
import { LicenseOperationsLive } from "../../src/operations/LicenseOperationsLive.js"
import { OrgOperationsLive } from "../../src/operations/OrgOperationsLive.js"
import { ProfileOperationsLive } from "../../src/operations/ProfileOperationsLive.js"
import { WorkflowOperationsLive } from "../../src/operations/WorkflowOperationsLive.js"
import type { DatabaseHealth, UnitOfWorkReferences } from "../../src/operations/DatabaseAccess.js"
import { InMemoryServices } from "../../src/services/InMemoryServices.js"
import { Licenses } from "../../src/services/Licenses.js"
import { Onboarding } from "../../src/services/Onboarding.js"
import { Orgs } from "../../src/services/Orgs.js"
import { Profiles } from "../../src/services/Profiles.js"
import { HealthWatches } from "../../src/transports/health/HealthWatches.js"
import { Services } from "./Services.js"
import type { Unavailable } from "../../src/domain/Errors.js"

export { InMemoryServices }

/** The in-memory services, but with every Orgs call ending as `fail` does (a database that refuses, a bug). */
export const failingOrgs = (fail: Effect.Effect<never, Unavailable>) =>
  Layer.merge(InMemoryServices, Layer.succeed(Orgs, Orgs.make({ create: () => fail, get: () => fail, list: () => fail })))

type PortServices = Orgs | Profiles | Licenses | Onboarding | DatabaseHealth | UnitOfWorkReferences

/**
 * The four service ports served in this process, on ephemeral loopback ports, with the same code
 * as the real processes (listener, pipeline, every style, the operations tables). Their services
 * are the in-memory ones unless `services` says otherwise (SqlServices where a test is about what
 * the database holds, or a layer with a failing service). `Services` holds their URLs.
 */
export const inProcessServers = <S = never, E = never>(
  overrides: Partial<SettingsValues> = {},
  services: Layer.Layer<PortServices | S, E, never> = InMemoryServices as Layer.Layer<PortServices | S, E, never>
) => {
  const urls = Effect.gen(function*() {
    const url = (listener: { readonly port: number }) => `http://127.0.0.1:${listener.port}`
    return {
      org: url(yield* servePort(org, 0)),
      profile: url(yield* servePort(profile, 0)),
      license: url(yield* servePort(license, 0)),
      workflow: url(yield* servePort(workflow, 0))
    }
  })
  return Layer.scoped(Services, urls).pipe(
    Layer.provide(Layer.mergeAll(OrgOperationsLive, ProfileOperationsLive, LicenseOperationsLive, WorkflowOperationsLive)),
    Layer.provideMerge(services),
    // One count of Watch streams for the four ports, as in a process.
    Layer.provide(Layer.unwrapEffect(Effect.map(Settings, (settings) => HealthWatches.layer(settings.maxHealthWatches)))),
    // Access lines off unless a test asks: thousands of calls would bury the suite's own output.
    Layer.provide(Settings.defaultsWith({ shutdownGraceMillis: 1_000, accessLog: false, ...overrides }))
  )
}
