import { License } from "../src/domain/License.js"
import { Org } from "../src/domain/Org.js"
import { Profile } from "../src/domain/Profile.js"
import { domainTable } from "../src/services/SqlTable.js"
import { runs } from "../src/services/WorkflowRuns.js"
import { statements } from "./baselines/statements.js"

/**
 * The services' statement texts, built as the services build them (Orgs.ts, Profiles.ts,
 * Licenses.ts from the domain classes; WorkflowRuns.ts's run table as it declares it), so that a run whose baselines would send other statements than the
 * services stops before it measures anything.
 */
const servicesStatements = (): Record<keyof typeof statements, string> => {
  const orgs = domainTable("orgs", Org)
  const profiles = domainTable("profiles", Profile)
  const licenses = domainTable("licenses", License, { start: "start_at", end: "end_at" })
  return {
    insertOrg: orgs.insertUnlessPresent("id"),
    selectOrg: `select ${orgs.selectList} from orgs where id = $1`,
    insertProfile: profiles.insertUnlessPresent("id"),
    selectProfile: `select ${profiles.selectList} from profiles where id = $1`,
    insertLicense: licenses.insertUnlessPresent("id"),
    selectLicense: `select ${licenses.selectList} from licenses where id = $1`,
    claimRun: runs.insertUnlessPresent("workflow_id")
  }
}

/** The statements of bench/baselines/statements.ts that differ from the services', each named with both texts. */
export const statementsDrift = (): ReadonlyArray<string> => {
  const services = servicesStatements()
  return (Object.keys(statements) as Array<keyof typeof statements>)
    .filter((name) => statements[name] !== services[name])
    .map((name) => `${name}:\n  baselines: ${statements[name]}\n  services:  ${services[name]}`)
}
