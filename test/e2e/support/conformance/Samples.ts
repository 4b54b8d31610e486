import { expect } from "@effect/vitest"
import { randomUUID } from "node:crypto"
import type { Answer } from "./Cell.js"

/**
 * The table's data, one entry per operation tag: what each cell sends and what it must answer,
 * a success and a refusal at least. An operation of the tables without an entry here fails the
 * table (all-styles.test.ts). Payloads are in the wire (JSON) shape every style maps from; they
 * are made afresh for each cell, over records made once for the whole table (`Seed`).
 */

export interface Case {
  readonly title: string
  readonly payload: unknown
  /** The reply (its record, unwrapped) matches `reply` as vitest's `toMatchObject` reads it; or the call is refused with this code. */
  readonly expected: { readonly reply: unknown } | { readonly refused: string; readonly message?: string }
}

const period = { start: "2023-11-16T12:00:00Z", end: "2024-11-16T12:00:00Z" }

/** Records every Get, List and repeated Create reads: made once, through one cell, before the table. */
export interface Seed {
  readonly org: { readonly id: string; readonly name: string }
  readonly profile: { readonly id: string; readonly fullName: string; readonly orgId: string }
  readonly license: { readonly id: string; readonly userId: string; readonly start: string; readonly end: string }
  readonly workflowRequest: {
    readonly workflowOptions: { readonly workflowId: string }
    readonly license: typeof period
    readonly org: { readonly name: string }
    readonly profile: { readonly fullName: string }
  }
  readonly workflow: { readonly workflowId: string; readonly orgId: string; readonly profileId: string; readonly licenseId: string }
}

/** Makes the seed by calling operations by tag (through the first cell). */
export const makeSeed = async (call: (tag: string, payload: unknown) => Promise<Answer>): Promise<Seed> => {
  const made = async (tag: string, payload: unknown) => {
    const answer = await call(tag, payload)
    if (!answer.ok) throw new Error(`the seed's ${tag} was refused: ${answer.code} ${answer.message}`)
    return answer.reply
  }
  const org = { id: randomUUID(), name: "Seed Org" }
  const profile = { id: randomUUID(), fullName: "Seed Person", orgId: org.id }
  const license = { id: randomUUID(), userId: profile.id, ...period }
  await made("CreateOrg", org)
  await made("CreateProfile", profile)
  await made("CreateLicense", license)
  const workflowRequest = {
    workflowOptions: { workflowId: randomUUID() },
    license: period,
    org: { name: "Seed Workflow Org" },
    profile: { fullName: "Seed Workflow Person" }
  }
  const workflow = (await made("CreateOnboardingWorkflow", workflowRequest)) as Seed["workflow"]
  return { org, profile, license, workflowRequest, workflow }
}

const refused = (code: string, message?: string) => ({ refused: code, ...(message === undefined ? {} : { message }) })

/** A Get of an id nobody made: not_found, naming the record. */
const unknown = (resource: string, field = "id"): Case => {
  const id = randomUUID()
  return { title: "an id nobody made", payload: { [field]: id }, expected: refused("not_found", `${resource} ${id} not found`) }
}

const uuid = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)

const newRun = (seed: Seed): Case => {
  const workflowId = randomUUID()
  return {
    title: "a new run",
    payload: { ...seed.workflowRequest, workflowOptions: { workflowId } },
    expected: { reply: { workflowId, orgId: uuid, profileId: uuid, licenseId: uuid } }
  }
}

const somePage = { nextPageToken: expect.stringMatching(/./) }

export const samples: Readonly<Record<string, (seed: Seed) => ReadonlyArray<Case>>> = {
  CreateOrg: (seed) => {
    const org = { id: randomUUID(), name: "Acme" }
    return [
      { title: "a new org", payload: org, expected: { reply: org } },
      { title: "the same request again", payload: seed.org, expected: { reply: seed.org } },
      { title: "a blank name", payload: { id: randomUUID(), name: " " }, expected: refused("invalid_argument") },
      { title: "another org's id", payload: { ...seed.org, name: "Someone else" }, expected: refused("already_exists") }
    ]
  },
  GetOrg: (seed) => [
    { title: "the seed's org", payload: { id: seed.org.id }, expected: { reply: seed.org } },
    unknown("org"),
    { title: "an id that is not a UUID", payload: { id: "not-a-uuid" }, expected: refused("invalid_argument", "id: must be a UUID (8-4-4-4-12 hex digits)") }
  ],
  ListOrgs: () => [
    { title: "a page of two", payload: { pageSize: 2 }, expected: { reply: { orgs: [expect.anything(), expect.anything()], ...somePage } } },
    { title: "a page over 100", payload: { pageSize: 101 }, expected: refused("invalid_argument") }
  ],
  CreateProfile: () => {
    // An org of its own (profiles do not need their org to exist): the seed org's list stays the seed's.
    const profile = { id: randomUUID(), fullName: "Ada Lovelace", orgId: randomUUID() }
    return [
      { title: "a new profile", payload: profile, expected: { reply: profile } },
      { title: "an org id that is not a UUID", payload: { ...profile, id: randomUUID(), orgId: "acme" }, expected: refused("invalid_argument") }
    ]
  },
  GetProfile: (seed) => [{ title: "the seed's profile", payload: { id: seed.profile.id }, expected: { reply: seed.profile } }, unknown("profile")],
  ListProfiles: (seed) => [
    { title: "the seed org's", payload: { orgId: seed.org.id }, expected: { reply: { profiles: [seed.profile], nextPageToken: "" } } },
    { title: "an org id that is not a UUID", payload: { orgId: "acme" }, expected: refused("invalid_argument") }
  ],
  CreateLicense: () => {
    const license = { id: randomUUID(), userId: randomUUID(), ...period }
    return [
      { title: "a new license", payload: license, expected: { reply: license } },
      { title: "an end not after its start", payload: { ...license, id: randomUUID(), end: period.start }, expected: refused("invalid_argument") }
    ]
  },
  GetLicense: (seed) => [{ title: "the seed's license", payload: { id: seed.license.id }, expected: { reply: seed.license } }, unknown("license")],
  ListLicenses: (seed) => [
    { title: "the seed person's", payload: { userId: seed.profile.id }, expected: { reply: { licenses: [seed.license], nextPageToken: "" } } },
    { title: "a token nobody handed out", payload: { pageToken: "not-a-token" }, expected: refused("invalid_argument") }
  ],
  CreateOnboardingWorkflow: (seed) => [
    newRun(seed),
    { title: "the seed's run again", payload: seed.workflowRequest, expected: { reply: seed.workflow } },
    {
      title: "a license ending before it starts",
      payload: { ...seed.workflowRequest, workflowOptions: { workflowId: randomUUID() }, license: { start: period.end, end: period.start } },
      expected: refused("invalid_argument")
    },
    { title: "the seed's id with another request", payload: { ...seed.workflowRequest, org: { name: "Twice" } }, expected: refused("already_exists") }
  ],
  GetOnboardingWorkflow: (seed) => [
    { title: "the seed's run", payload: { workflowId: seed.workflow.workflowId }, expected: { reply: { ...seed.workflow, status: "completed" } } },
    unknown("workflow", "workflowId")
  ],
  ListOnboardingWorkflows: () => [
    { title: "one completed run", payload: { pageSize: 1, status: "completed" }, expected: { reply: { workflows: [{ status: "completed" }], ...somePage } } },
    { title: "a status no run has", payload: { status: "running" }, expected: refused("invalid_argument") }
  ]
}
