import pg from "pg"
import type { Acknowledged } from "./Load.js"

type AcknowledgedWorkflow = Extract<Acknowledged, { readonly kind: "workflow" }>

/** Rows that a workflow created but no run record accounts for: must be none. */
export const orphanQuery = `
  select (select count(*) from orgs o where not exists (select 1 from onboarding_runs r where r.org_id = o.id))::int as orgs,
         (select count(*) from profiles p where not exists (select 1 from onboarding_runs r where r.profile_id = p.id))::int as profiles,
         (select count(*) from licenses l where not exists (select 1 from onboarding_runs r where r.license_id = l.id))::int as licenses,
         (select count(*) from onboarding_runs)::int as runs`

export interface WorkflowAudit {
  /** Acknowledged org creates whose org is there, with the name acknowledged. */
  readonly orgsStored: number
  /** Acknowledged workflows whose run record is there with its org, a profile in it and a license for it, as acknowledged. */
  readonly complete: number
  /** Acknowledged workflows whose org name appears on more than one org: a retry that onboarded twice. */
  readonly duplicated: number
  /** Orgs, profiles and licenses that no run record accounts for, and the run records in all. */
  readonly orphans: { readonly orgs: number; readonly profiles: number; readonly licenses: number; readonly runs: number }
}

/**
 * Looks in PostgreSQL itself (not through the services) at what acknowledged workflows left:
 * each complete exactly as its client was told, none twice, and nothing half-made beside them;
 * and whether each acknowledged org is stored. Thousands of acknowledgements are checked in a few
 * queries, where reading each back through a service takes a call (or four) apiece.
 */
export const auditWorkflows = async (
  databaseUrl: string,
  acknowledged: ReadonlyArray<Acknowledged>,
  /** The org name of every workflow request sent, acknowledged or not (by default the acknowledged ones'): each may name one org at most. */
  requestedOrgNames?: ReadonlyArray<string>
): Promise<WorkflowAudit> => {
  const workflows = acknowledged.filter((a): a is AcknowledgedWorkflow => a.kind === "workflow")
  const db = new pg.Client({ connectionString: databaseUrl })
  await db.connect()
  try {
    const complete = await db.query(
      `select count(*)::int as n from onboarding_runs r
         join unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[]) as a(workflow_id, org_id, profile_id, license_id)
           on a.workflow_id = r.workflow_id and a.org_id = r.org_id and a.profile_id = r.profile_id and a.license_id = r.license_id
         join orgs o on o.id = r.org_id
         join profiles p on p.id = r.profile_id and p.org_id = o.id
         join licenses l on l.id = r.license_id and l.user_id = p.id`,
      [workflows.map((w) => w.id), workflows.map((w) => w.orgId), workflows.map((w) => w.profileId), workflows.map((w) => w.licenseId)]
    )
    const duplicated = await db.query(
      `select count(*)::int as n from (select name from orgs where name = any($1::text[]) group by name having count(*) > 1) twice`,
      [requestedOrgNames ?? workflows.map((w) => w.orgName)]
    )
    const orgs = acknowledged.filter((a) => a.kind === "org")
    const orgsStored = await db.query(
      `select count(*)::int as n from orgs o join unnest($1::uuid[], $2::text[]) as a(id, name) on a.id = o.id and a.name = o.name`,
      [orgs.map((o) => o.id), orgs.map((o) => o.name)]
    )
    const orphans = await db.query(orphanQuery)
    return {
      orgsStored: orgsStored.rows[0].n,
      complete: complete.rows[0].n,
      duplicated: duplicated.rows[0].n,
      orphans: orphans.rows[0]
    }
  } finally {
    await db.end()
  }
}
