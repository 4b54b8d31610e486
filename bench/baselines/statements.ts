import { licensesTable } from "../../src/services/Licenses.js"
import { orgsTable } from "../../src/services/Orgs.js"
import { profilesTable } from "../../src/services/Profiles.js"
import { runs } from "../../src/services/WorkflowRuns.js"

/**
 * The statements the services send, for the baselines: a baseline that did less (or other) work
 * would not measure what the services' abstractions cost. Taken from the services' own table
 * declarations (src/services/records/SqlTable.ts builds them from the domain classes; WorkflowRuns.ts
 * declares the runs' table), and bound with each table's `values`, so a field a record gains is
 * sent by the baselines too, with nothing written here. Placeholders are numbered as @effect/sql
 * numbers them. An insert answers the number of rows it wrote (nothing is read back: the caller
 * holds the values); on conflict the row is read back and compared, as the services do.
 */
export const tables = { orgs: orgsTable, profiles: profilesTable, licenses: licensesTable, runs } as const

export const statements = {
  insertOrg: orgsTable.insertUnlessPresent("id"),
  selectOrg: orgsTable.selectBy("id"),
  insertProfile: profilesTable.insertUnlessPresent("id"),
  selectProfile: profilesTable.selectBy("id"),
  insertLicense: licensesTable.insertUnlessPresent("id"),
  selectLicense: licensesTable.selectBy("id"),
  /** Parameters: `tables.runs.values`, with status "completed" and the request's fingerprint. */
  claimRun: runs.insertUnlessPresent("workflow_id")
} as const

/** The run's status, bound as the services bind it: the only one a run reaches. */
export const completed = "completed"
