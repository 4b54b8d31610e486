/**
 * The statements the services send, written out for the baselines: a baseline that did less (or
 * other) work would not measure what the services' abstractions cost. The same text as the
 * services' (src/services/SqlTable.ts builds theirs from the domain classes; Orgs.ts, Profiles.ts,
 * Licenses.ts and WorkflowRuns.ts use them), kept in step by hand and checked at the start of every
 * run (bench/StatementsCheck.ts). Placeholders are numbered as @effect/sql numbers them. An insert
 * answers the number of rows it wrote (nothing is read back: the caller holds the values); on
 * conflict the row is read back and compared, as the services do.
 */
const utcText = (column: string) =>
  `rtrim(rtrim(to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'), '0'), '.') || 'Z'`

export const statements = {
  insertOrg: "insert into orgs (id, name) values ($1, $2) on conflict (id) do nothing",
  selectOrg: "select id, name from orgs where id = $1",
  insertProfile: "insert into profiles (id, full_name, org_id) values ($1, $2, $3) on conflict (id) do nothing",
  selectProfile: `select id, full_name as "fullName", org_id as "orgId" from profiles where id = $1`,
  insertLicense: "insert into licenses (id, user_id, start_at, end_at) " +
    "values ($1, $2, $3::timestamptz, $4::timestamptz) on conflict (id) do nothing",
  selectLicense: `select id, user_id as "userId", ${utcText("start_at")} as "start", ${utcText("end_at")} as "end" ` +
    "from licenses where id = $1",
  /** Parameters: workflow id, org id, profile id, license id, status ("completed"), request fingerprint. */
  claimRun: "insert into onboarding_runs (workflow_id, org_id, profile_id, license_id, status, request_fingerprint) " +
    "values ($1, $2, $3, $4, $5, $6) on conflict (workflow_id) do nothing"
} as const

/** The run's status, bound as the services bind it ($5 of `claimRun`): the only one a run reaches. */
export const completed = "completed"
