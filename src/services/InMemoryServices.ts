import { Layer } from "effect"
import { DatabaseHealthInMemory } from "./database/DatabaseHealth.js"
import { unitOfWorkReferences } from "./database/Transient.js"
import { InMemoryStore } from "./records/InMemoryStore.js"
import { Licenses } from "./Licenses.js"
import { Onboarding } from "./Onboarding.js"
import { Orgs } from "./Orgs.js"
import { Profiles } from "./Profiles.js"

/**
 * The four services and health over one in-memory store: a port's services without a database
 * (a unit of work's references at their defaults: no budget but the default, a gate without a bound).
 * The store is in the output too, so a test can look at what was written.
 */
export const InMemoryServices = Layer.mergeAll(
  Orgs.InMemory,
  Profiles.InMemory,
  Licenses.InMemory,
  Onboarding.InMemory,
  DatabaseHealthInMemory,
  unitOfWorkReferences
).pipe(Layer.provideMerge(InMemoryStore.layer))
