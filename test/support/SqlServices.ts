import { Layer } from "effect"
import { DatabaseHealthLive } from "../../src/services/database/DatabaseHealth.js"
import { unitOfWorkReferences } from "../../src/services/database/Transient.js"
import { Licenses } from "../../src/services/Licenses.js"
import { Onboarding } from "../../src/services/Onboarding.js"
import { Orgs } from "../../src/services/Orgs.js"
import { Profiles } from "../../src/services/Profiles.js"
import { TestDatabase } from "./TestDatabase.js"

/** The SQL services of every port over `database` (and the database itself, to query). */
export const sqlServicesOver = (database: typeof TestDatabase) =>
  Layer.mergeAll(Orgs.Default, Profiles.Default, Licenses.Default, Onboarding.Default, DatabaseHealthLive, unitOfWorkReferences).pipe(
    Layer.provideMerge(database)
  )

/** The SQL services of every port over the test database (and the database itself, to query). */
export const SqlServices = sqlServicesOver(TestDatabase)
