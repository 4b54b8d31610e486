import { randomUUID } from "node:crypto"
import type { StyleClient } from "../e2e/support/StyleClient.js"

/** A create that a client saw acknowledged: it must be readable afterwards, as acknowledged. */
export type Acknowledged =
  | { readonly kind: "org"; readonly id: string; readonly name: string }
  | { readonly kind: "profile"; readonly id: string; readonly fullName: string; readonly orgId: string }
  | { readonly kind: "license"; readonly id: string; readonly userId: string; readonly start: string; readonly end: string }
  | {
    readonly kind: "workflow"
    readonly id: string
    readonly orgId: string
    readonly profileId: string
    readonly licenseId: string
    readonly orgName: string
  }

export interface LoadResult {
  requests: number
  readonly failures: Array<{ readonly style: string; readonly operation: string; readonly error: string }>
  readonly acknowledged: Array<Acknowledged>
  readonly latenciesMillis: Array<number>
  /** When each call in `latenciesMillis` was answered (`Date.now()`), in the same order. */
  readonly answeredAt: Array<number>
}

const period = { start: "2023-11-16T12:00:00Z", end: "2024-11-16T12:00:00Z" }

type Operation = (client: StyleClient, result: LoadResult, tag: string) => Promise<void>

const operations: Record<string, Operation> = {
  createOrg: async (client, result, tag) => {
    const org = { id: randomUUID(), name: `soak ${tag}` }
    await client.createOrg(org)
    result.acknowledged.push({ kind: "org", ...org })
  },
  createProfile: async (client, result) => {
    const profile = { id: randomUUID(), fullName: "Soak Person", orgId: randomUUID() }
    await client.createProfile(profile)
    result.acknowledged.push({ kind: "profile", ...profile })
  },
  createLicense: async (client, result) => {
    const license = { id: randomUUID(), userId: randomUUID(), ...period }
    await client.createLicense(license)
    result.acknowledged.push({ kind: "license", ...license })
  },
  readBack: async (client, result) => {
    const last = result.acknowledged[result.acknowledged.length - 1]
    if (last?.kind === "org") await client.getOrg(last.id)
    else if (last?.kind === "workflow") await client.getWorkflow(last.id)
    else await client.getOrg(randomUUID()).catch(() => undefined) // a not-found is an answer too
  },
  workflow: async (client, result, tag) => {
    const orgName = `onboarded ${tag}`
    const answer = await client.createWorkflow({ license: period, org: { name: orgName }, profile: { fullName: "New Hire" } })
    result.acknowledged.push({ kind: "workflow", id: answer.workflowId, ...answer, orgName })
  }
}

/** An error's message and, for `fetch failed` and the like, what lies under it (`other side closed`). */
export const describeError = (error: unknown): string => {
  const message = String((error as Error)?.message ?? error)
  const cause = (error as { cause?: { message?: unknown; code?: unknown } })?.cause
  return cause?.message === undefined ? message : `${message}: ${String(cause.code ?? "")} ${String(cause.message)}`.trim()
}

/** The mix of a soak: mostly writes, some reads, a fifth workflows. */
export const mixedOperations = ["createOrg", "createOrg", "createProfile", "createLicense", "readBack", "readBack", "workflow", "workflow"]

/**
 * `concurrency` loops, each on one client (round robin over `clients`), running operations from
 * `mix` until `running()` says stop. Every failure is recorded with its style and operation.
 */
export const runLoad = async (options: {
  readonly clients: ReadonlyArray<StyleClient>
  readonly concurrency: number
  readonly mix: ReadonlyArray<string>
  readonly running: () => boolean
  readonly onFailure?: (error: unknown) => "count" | "ignore"
}): Promise<LoadResult> => {
  const result: LoadResult = { requests: 0, failures: [], acknowledged: [], latenciesMillis: [], answeredAt: [] }
  const worker = async (index: number) => {
    const client = options.clients[index % options.clients.length]!
    for (let i = 0; options.running(); i++) {
      const operation = options.mix[(index + i) % options.mix.length]!
      const started = performance.now()
      try {
        await operations[operation]!(client, result, `${index}-${i}`)
        result.latenciesMillis.push(performance.now() - started)
        result.answeredAt.push(Date.now())
      } catch (error) {
        if ((options.onFailure?.(error) ?? "count") === "count") {
          result.failures.push({ style: client.style, operation, error: describeError(error) })
        }
      }
      result.requests++
    }
  }
  await Promise.all(Array.from({ length: options.concurrency }, (_, i) => worker(i)))
  return result
}

/**
 * Reads every acknowledged create back through `client`, `concurrency` calls at a time (a port
 * refuses connections past MAX_CONNECTIONS, so an unbounded read-back would fail on the reader's
 * side); returns what did not read back as acknowledged. `runsOnly` reads a workflow's run record
 * alone, for a client that only reaches the workflow service.
 */
export const unreadable = async (
  client: StyleClient,
  acknowledged: ReadonlyArray<Acknowledged>,
  options: { readonly concurrency?: number; readonly runsOnly?: boolean } = {}
) => {
  const concurrency = options.concurrency ?? 16
  const missing: Array<{ readonly expected: Acknowledged; readonly problem: string }> = []
  let next = 0
  const check = async (item: Acknowledged) => {
    switch (item.kind) {
      case "org": {
        const org = await client.getOrg(item.id)
        return org.name === item.name
      }
      case "profile": {
        const profile = await client.getProfile(item.id)
        return profile.fullName === item.fullName && profile.orgId === item.orgId
      }
      case "license": {
        const license = await client.getLicense(item.id)
        return license.userId === item.userId && license.start === item.start && license.end === item.end
      }
      case "workflow": {
        const run = await client.getWorkflow(item.id)
        if (options.runsOnly) {
          return run.orgId === item.orgId && run.profileId === item.profileId && run.licenseId === item.licenseId
        }
        const org = await client.getOrg(item.orgId)
        const profile = await client.getProfile(item.profileId)
        const license = await client.getLicense(item.licenseId)
        return run.orgId === item.orgId && org.name === item.orgName && profile.orgId === item.orgId &&
          license.userId === item.profileId
      }
    }
  }
  const worker = async () => {
    while (next < acknowledged.length) {
      const item = acknowledged[next++]!
      const ok = await check(item).catch((e: Error) => e.message)
      if (ok !== true) missing.push({ expected: item, problem: ok === false ? "differs" : ok })
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return missing
}

export const percentile = (values: ReadonlyArray<number>, p: number): number => {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}
