import pg from "pg"
import type { Acknowledged } from "./Load.js"

/**
 * Every acknowledged create, looked up in the database itself: each kind in one query over arrays
 * of what its clients were told, so tens of thousands are checked in seconds, where reading each
 * back through a service takes a call (or four, for a workflow) apiece. Answers the ones not
 * stored as acknowledged (missing, or other content), at most `limit` of them.
 */
export const notStored = async (databaseUrl: string, acknowledged: ReadonlyArray<Acknowledged>, limit = 10) => {
  const of = <K extends Acknowledged["kind"]>(kind: K) => acknowledged.filter((a): a is Extract<Acknowledged, { kind: K }> => a.kind === kind)
  const orgs = of("org")
  const profiles = of("profile")
  const licenses = of("license")
  const workflows = of("workflow")
  const db = new pg.Client({ connectionString: databaseUrl })
  await db.connect()
  try {
    const missing = async (kind: string, query: string, values: ReadonlyArray<ReadonlyArray<unknown>>) =>
      (await db.query<{ id: string }>(query, [...values])).rows.map(({ id }) => `${kind} ${id}`)
    return [
      ...await missing(
        "org",
        `select a.id from unnest($1::uuid[], $2::text[]) as a(id, name)
          where not exists (select 1 from orgs o where o.id = a.id and o.name = a.name)`,
        [orgs.map((o) => o.id), orgs.map((o) => o.name)]
      ),
      ...await missing(
        "profile",
        `select a.id from unnest($1::uuid[], $2::text[], $3::uuid[]) as a(id, full_name, org_id)
          where not exists (select 1 from profiles p where p.id = a.id and p.full_name = a.full_name and p.org_id = a.org_id)`,
        [profiles.map((p) => p.id), profiles.map((p) => p.fullName), profiles.map((p) => p.orgId)]
      ),
      ...await missing(
        "license",
        `select a.id from unnest($1::uuid[], $2::uuid[], $3::timestamptz[], $4::timestamptz[]) as a(id, user_id, start_at, end_at)
          where not exists (select 1 from licenses l where l.id = a.id and l.user_id = a.user_id and l.start_at = a.start_at and l.end_at = a.end_at)`,
        [licenses.map((l) => l.id), licenses.map((l) => l.userId), licenses.map((l) => l.start), licenses.map((l) => l.end)]
      ),
      ...await missing(
        "workflow",
        `select a.workflow_id as id from unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[]) as a(workflow_id, org_id, profile_id, license_id, org_name)
          where not exists (
            select 1 from onboarding_runs r
              join orgs o on o.id = r.org_id and o.name = a.org_name
              join profiles p on p.id = r.profile_id and p.org_id = o.id
              join licenses l on l.id = r.license_id and l.user_id = p.id
             where r.workflow_id = a.workflow_id and r.org_id = a.org_id and r.profile_id = a.profile_id and r.license_id = a.license_id)`,
        [workflows.map((w) => w.id), workflows.map((w) => w.orgId), workflows.map((w) => w.profileId), workflows.map((w) => w.licenseId), workflows.map((w) => w.orgName)]
      )
    ].slice(0, limit)
  } finally {
    await db.end()
  }
}
