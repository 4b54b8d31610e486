import { randomUUID } from "node:crypto"
import pg from "pg"
import { StyleError, type StyleClient } from "../e2e/support/StyleClient.js"
import { type Acknowledged, describeError } from "./Load.js"
import { auditWorkflows } from "./WorkflowAudit.js"

const period = { start: "2023-11-16T12:00:00Z", end: "2024-11-16T12:00:00Z" }

type Kind = "workflowWithId" | "workflowWithoutId" | "createOrg" | "read"

/** The stream each worker sends, in turn: both kinds of workflow, a create, a read of something acknowledged. */
const mix: ReadonlyArray<Kind> = ["workflowWithId", "workflowWithoutId", "createOrg", "read"]

interface Call {
  readonly kind: Kind
  readonly style: string
  readonly began: number
  readonly ended: number
  /** "ok", the gRPC code of a refusal, or "no answer" (the connection to the service failed). */
  readonly answer: string
}

export interface FailoverLoad {
  readonly calls: Array<Call>
  readonly acknowledged: Array<Acknowledged>
  /** The org name of every workflow sent, answered or not: each must name one org at most. */
  readonly workflowOrgNames: Array<string>
  /** Workflow ids a refusal named as of unknown outcome (a COMMIT that went unanswered). */
  readonly outcomeUnknown: Array<string>
  /** Reads of an acknowledged record that answered something else than what was acknowledged. */
  readonly readsWrong: Array<string>
}

const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/

/**
 * `concurrency` workers, round robin over `clients`, each sending the mix until `running()` says
 * stop (it is shown the calls so far, so that stopping can wait on what they answered). No call is retried: every answer is recorded as it came, and every acknowledged create
 * kept for the audit.
 */
export const failoverLoad = async (options: {
  readonly clients: ReadonlyArray<StyleClient>
  readonly concurrency: number
  readonly running: (sofar: FailoverLoad) => boolean
}): Promise<FailoverLoad> => {
  const load: FailoverLoad = { calls: [], acknowledged: [], workflowOrgNames: [], outcomeUnknown: [], readsWrong: [] }
  const workflow = async (client: StyleClient, withId: boolean) => {
    const workflowId = randomUUID()
    const orgName = `failover ${workflowId}`
    load.workflowOrgNames.push(orgName)
    try {
      const answer = await client.createWorkflow({
        ...(withId ? { workflowId } : {}),
        license: period,
        org: { name: orgName },
        profile: { fullName: "New Hire" }
      })
      load.acknowledged.push({ kind: "workflow", id: answer.workflowId, ...answer, orgName })
    } catch (error) {
      if (error instanceof StyleError && /outcome|unknown/.test(error.message)) {
        const named = uuid.exec(error.message)?.[0]
        if (named !== undefined) load.outcomeUnknown.push(named)
      }
      throw error
    }
  }
  const read = async (client: StyleClient) => {
    const known = load.acknowledged[Math.floor(Math.random() * load.acknowledged.length)]
    if (known?.kind === "workflow") {
      const run = await client.getWorkflow(known.id)
      if (run.orgId !== known.orgId) load.readsWrong.push(`workflow ${known.id}`)
    } else if (known?.kind === "org") {
      const org = await client.getOrg(known.id)
      if (org.name !== known.name) load.readsWrong.push(`org ${known.id}`)
    }
  }
  const send: Record<Kind, (client: StyleClient) => Promise<void>> = {
    workflowWithId: (client) => workflow(client, true),
    workflowWithoutId: (client) => workflow(client, false),
    createOrg: async (client) => {
      const org = { id: randomUUID(), name: `failover org ${randomUUID()}` }
      await client.createOrg(org)
      load.acknowledged.push({ kind: "org", ...org })
    },
    read
  }
  const worker = async (index: number) => {
    const client = options.clients[index % options.clients.length]!
    for (let i = index; options.running(load); i++) {
      const kind = mix[i % mix.length]!
      const began = Date.now()
      let answer = "ok"
      try {
        await send[kind](client)
      } catch (error) {
        answer = error instanceof StyleError ? String(error.code) : `no answer: ${describeError(error)}`
        // A read of an acknowledged record answered not_found: lost.
        if (kind === "read" && error instanceof StyleError && error.code === 5) load.readsWrong.push(error.message)
        // Without an answer the loop would spin on a port that refuses: a short pause.
        if (!(error instanceof StyleError)) await new Promise((resolve) => setTimeout(resolve, 50))
      }
      load.calls.push({ kind, style: client.style, began, ended: Date.now(), answer })
    }
  }
  await Promise.all(Array.from({ length: options.concurrency }, (_, i) => worker(i)))
  return load
}

const isWrite = (call: Call) => call.kind !== "read"

/**
 * What a fault's figures are made of: calls sent and acknowledged, answers by code, and the
 * longest time without a successful write, from `from` (the fault) to the last success.
 */
export const callFigures = (load: FailoverLoad, from: number) => {
  const answers: Record<string, number> = {}
  for (const call of load.calls) answers[call.answer] = (answers[call.answer] ?? 0) + 1
  const successes = load.calls.filter((c) => isWrite(c) && c.answer === "ok").map((c) => c.ended).sort((a, b) => a - b)
  let longest = 0
  let previous = from
  for (const ended of successes) {
    if (ended < from) continue
    longest = Math.max(longest, ended - previous)
    previous = ended
  }
  return {
    callsSent: load.calls.length,
    writesSent: load.calls.filter(isWrite).length,
    acknowledgedCreates: load.acknowledged.length,
    answers,
    longestWithoutSuccessfulWriteMs: longest
  }
}

export interface FailoverAudit {
  /** Acknowledged creates not in the database as acknowledged (workflows: the whole triple and its run). */
  readonly lost: number
  /** Orgs, profiles or licenses no run accounts for (beyond those made by createOrg). */
  readonly partial: number
  /** Workflow requests that made more than one org. */
  readonly duplicated: number
  /** Workflows of unknown outcome: how many did commit, and whether each did so completely once. */
  readonly unknownOutcomes: { readonly named: number; readonly committed: number }
}

/**
 * Looks in the database (on the final leader) at what the load left: every acknowledged create
 * there, exactly as acknowledged; no workflow half-made; no request onboarded twice.
 */
export const auditFailover = async (databaseUrl: string, load: FailoverLoad): Promise<FailoverAudit> => {
  const audit = await auditWorkflows(databaseUrl, load.acknowledged, load.workflowOrgNames)
  const db = new pg.Client({ connectionString: databaseUrl })
  await db.connect()
  try {
    // Orgs made by createOrg have no run by design: only those of workflows count as partial.
    const createdOrgs = await db.query(`select count(*)::int as n from orgs where name like 'failover org %'`)
    const unknown = await db.query(
      `select count(*)::int as n from onboarding_runs r join orgs o on o.id = r.org_id join profiles p on p.id = r.profile_id
         join licenses l on l.id = r.license_id where r.workflow_id = any($1::uuid[])`,
      [load.outcomeUnknown]
    )
    const workflows = load.acknowledged.filter((a) => a.kind === "workflow").length
    const orgs = load.acknowledged.filter((a) => a.kind === "org").length
    return {
      lost: workflows - audit.complete + orgs - audit.orgsStored,
      partial: audit.orphans.orgs - createdOrgs.rows[0].n + audit.orphans.profiles + audit.orphans.licenses,
      duplicated: audit.duplicated,
      unknownOutcomes: { named: load.outcomeUnknown.length, committed: unknown.rows[0].n }
    }
  } finally {
    await db.end()
  }
}
