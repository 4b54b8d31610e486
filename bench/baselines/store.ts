import { createHash, randomUUID } from "node:crypto"
import pg from "pg"
import { completed, statements, tables } from "./statements.js"

/**
 * The data access a hand-written service would have, shared by baselines (a), (b) and (e): the same
 * statements as the services, on a `pg` pool of the same size, with the same create semantics
 * (insert; on conflict read back and compare). No validation beyond what the database enforces.
 */
export type Created<A> = { readonly kind: "ok"; readonly value: A } | { readonly kind: "exists" }

export interface OrgRow {
  readonly id: string
  readonly name: string
}
export interface ProfileRow {
  readonly id: string
  readonly fullName: string
  readonly orgId: string
}
export interface LicenseRow {
  readonly id: string
  readonly userId: string
  readonly start: string
  readonly end: string
}
export interface WorkflowInput {
  readonly orgName: string
  readonly fullName: string
  readonly start: string
  readonly end: string
}
export interface WorkflowIds {
  readonly workflowId: string
  readonly orgId: string
  readonly profileId: string
  readonly licenseId: string
}

/** Whether a stored row holds every field of `a` unchanged: a replayed create, not a conflict. */
export const sameFields = (a: object, b: object) =>
  Object.entries(a).every(([key, value]) => (b as Record<string, unknown>)[key] === value)

/** A new run's ids, made by the server as the services make them. */
export const newWorkflowIds = (): WorkflowIds => ({
  workflowId: randomUUID(),
  orgId: randomUUID(),
  profileId: randomUUID(),
  licenseId: randomUUID()
})

/** `claimRun`'s parameters: the run's ids, its status, and the request's fingerprint (SHA-256 of its content). */
export const claimRunValues = (ids: WorkflowIds, input: WorkflowInput): ReadonlyArray<unknown> =>
  tables.runs.values({
    ...ids,
    status: completed,
    fingerprint: createHash("sha256").update(JSON.stringify([input.orgName, input.fullName, input.start, input.end])).digest("hex")
  })

/** The workflow's three rows' parameters, as the services bind them. */
export const workflowRows = (ids: WorkflowIds, input: WorkflowInput) => ({
  org: tables.orgs.values({ id: ids.orgId, name: input.orgName }),
  profile: tables.profiles.values({ id: ids.profileId, fullName: input.fullName, orgId: ids.orgId }),
  license: tables.licenses.values({ id: ids.licenseId, userId: ids.profileId, start: input.start, end: input.end })
})

export const openStore = (databaseUrl: string, poolSize: number) => {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize, application_name: "bench-baseline" })

  const first = async <A>(text: string, values: ReadonlyArray<unknown>): Promise<A | undefined> =>
    (await pool.query(text, values as Array<unknown>)).rows[0] as A | undefined

  const insertOrReplay = async <A extends { id: string }>(
    insert: string,
    values: ReadonlyArray<unknown>,
    select: string,
    value: A
  ): Promise<Created<A>> => {
    if ((await pool.query(insert, values as Array<unknown>)).rowCount === 1) return { kind: "ok", value }
    const stored = await first<A>(select, [value.id])
    return stored !== undefined && sameFields(value, stored) ? { kind: "ok", value: stored } : { kind: "exists" }
  }

  return {
    createOrg: (org: OrgRow) => insertOrReplay(statements.insertOrg, tables.orgs.values(org), statements.selectOrg, org),
    getOrg: (id: string) => first<OrgRow>(statements.selectOrg, [id]),
    createProfile: (p: ProfileRow) =>
      insertOrReplay(statements.insertProfile, tables.profiles.values(p), statements.selectProfile, p),
    getProfile: (id: string) => first<ProfileRow>(statements.selectProfile, [id]),
    createLicense: (l: LicenseRow) =>
      insertOrReplay(statements.insertLicense, tables.licenses.values(l), statements.selectLicense, l),
    getLicense: (id: string) => first<LicenseRow>(statements.selectLicense, [id]),

    /** The workflow's transaction: claim the run row, then the three rows; ids made here. */
    createWorkflow: async (input: WorkflowInput): Promise<WorkflowIds> => {
      const ids = newWorkflowIds()
      const client = await pool.connect()
      try {
        await client.query("BEGIN")
        await client.query(statements.claimRun, [...claimRunValues(ids, input)])
        await client.query(statements.insertOrg, [...workflowRows(ids, input).org])
        await client.query(statements.insertProfile, [...workflowRows(ids, input).profile])
        await client.query(statements.insertLicense, [...workflowRows(ids, input).license])
        await client.query("COMMIT")
        return ids
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined)
        throw error
      } finally {
        client.release()
      }
    },

    close: () => pool.end()
  }
}

export type Store = ReturnType<typeof openStore>
