/**
 * The statements the services send, written out for the baselines: a baseline that did less (or
 * other) work would not measure what the services' abstractions cost. Kept in step with
 * src/services by hand; `placeholders` are numbered as @effect/sql numbers them.
 */
const utcText = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`

export const statements = {
  insertOrg: "insert into orgs (id, name) values ($1, $2) on conflict (id) do nothing returning id",
  selectOrg: "select id, name from orgs where id = $1",
  insertProfile: "insert into profiles (id, full_name, org_id) values ($1, $2, $3) on conflict (id) do nothing returning id",
  selectProfile: `select id, full_name as "fullName", org_id as "orgId" from profiles where id = $1`,
  insertLicense: "insert into licenses (id, user_id, start_at, end_at) " +
    "values ($1, $2, $3::timestamptz, $4::timestamptz) on conflict (id) do nothing returning id",
  selectLicense: `select id, user_id as "userId", ${utcText("start_at")} as start, ${utcText("end_at")} as "end" ` +
    "from licenses where id = $1",
  claimRun: "insert into onboarding_runs (workflow_id, org_id, profile_id, license_id, request_fingerprint, status) " +
    "values ($1, $2, $3, $4, $5, 'completed') on conflict (workflow_id) do nothing returning workflow_id"
} as const
