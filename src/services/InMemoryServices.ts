import { Layer } from "effect"
import { DatabaseHealth } from "./DatabaseHealth.js"
import { InMemoryStore } from "./InMemoryStore.js"
import { Licenses } from "./Licenses.js"
import { Onboarding } from "./Onboarding.js"
import { Orgs } from "./Orgs.js"
import { Profiles } from "./Profiles.js"

/**
 * The four services and health over one in-memory store: a port's services without a database.
 * The store is in the output too, so a test can look at what was written.
 */
export const InMemoryServices = Layer.mergeAll(
  Orgs.InMemory,
  Profiles.InMemory,
  Licenses.InMemory,
  Onboarding.InMemory,
  DatabaseHealth.InMemory
).pipe(Layer.provideMerge(InMemoryStore.layer))
