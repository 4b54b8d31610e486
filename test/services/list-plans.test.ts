import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, type Schema } from "effect"
import { createHash } from "node:crypto"
import { ListLicensesRequest } from "../../src/domain/License.js"
import { ListOnboardingWorkflowsRequest } from "../../src/domain/Onboarding.js"
import { ListOrgsRequest } from "../../src/domain/Org.js"
import type { Page, PageQuery } from "../../src/domain/Page.js"
import { ListProfilesRequest } from "../../src/domain/Profile.js"
import { validate } from "../../src/domain/Validation.js"
import { Licenses } from "../../src/services/Licenses.js"
import { Onboarding } from "../../src/services/Onboarding.js"
import { Orgs } from "../../src/services/Orgs.js"
import { Profiles } from "../../src/services/Profiles.js"
import { countingSqlClient, databaseTap } from "../support/CountingSqlClient.js"
import { TestDatabase, testDatabaseKind } from "../support/TestDatabase.js"

/**
 * Each list statement, as the services send it, is one index range scan in list order: no Sort
 * and no Seq Scan, so a page costs the same at ten rows or a million. The tables hold a few
 * thousand rows (and fresh statistics), so that the planner's choice is the one it makes on a
 * real table, not the "it's tiny, scan it" of an empty one.
 */

const tap = databaseTap()
const Services = Layer.mergeAll(Orgs.Default, Profiles.Default, Licenses.Default, Onboarding.Default).pipe(
  Layer.provide(countingSqlClient(tap)),
  Layer.provideMerge(TestDatabase)
)

const seeded = 3_000
/** 30 orgs (and users) own the seeded profiles (and licenses): md5 of a number is a valid uuid. */
const owner = (n: number) => {
  const hex = createHash("md5").update(String(n)).digest("hex")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

const seed = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`insert into orgs (id, name, created_at)
             select gen_random_uuid(), 'org ' || n, now() - n * interval '1 second' from generate_series(1, ${seeded}) n`
  yield* sql`insert into profiles (id, full_name, org_id, created_at)
             select gen_random_uuid(), 'person ' || n, md5((n % 30)::text)::uuid, now() - n * interval '1 second'
             from generate_series(1, ${seeded}) n`
  yield* sql`insert into licenses (id, user_id, start_at, end_at, created_at)
             select gen_random_uuid(), md5((n % 30)::text)::uuid, now(), now() + interval '1 day', now() - n * interval '1 second'
             from generate_series(1, ${seeded}) n`
  yield* sql`insert into onboarding_runs (workflow_id, org_id, profile_id, license_id, request_fingerprint, status, created_at)
             select gen_random_uuid(), o.id, p.id, l.id, 'seeded', 'completed', o.created_at
             from (select id, created_at, row_number() over () as r from orgs) o
             join (select id, row_number() over () as r from profiles) p using (r)
             join (select id, row_number() over () as r from licenses) l using (r)`
  yield* sql`analyze`
})

interface PlanNode {
  readonly "Node Type": string
  readonly "Index Name"?: string
  readonly Plans?: ReadonlyArray<PlanNode>
}

const nodesOf = (node: PlanNode): ReadonlyArray<PlanNode> => [node, ...(node.Plans ?? []).flatMap(nodesOf)]

/** The plan of each list statement the services sent since `from`. */
const plansSince = (from: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const lists = tap.sent.slice(from).filter((statement) => /order by created_at desc/.test(statement.sql))
    expect(lists.length).toBeGreaterThan(0)
    return yield* Effect.forEach(lists, (statement) =>
      Effect.map(
        sql.unsafe<Record<string, unknown>>(`explain (format json) ${statement.sql}`, statement.params as Array<unknown>),
        (rows) => {
          const plan = Object.values(rows[0]!)[0]
          const parsed = (typeof plan === "string" ? JSON.parse(plan) : plan) as ReadonlyArray<{ Plan: PlanNode }>
          return { sql: statement.sql, nodes: nodesOf(parsed[0]!.Plan) }
        }
      ))
  })

/**
 * Lists a first page (of 5) and the one after it, with `filter`, and checks that both statements
 * read one of `indexes` in list order.
 */
const servedByIndex = <Filter extends string | undefined, A, I>(
  Request: Schema.Schema<{ readonly query: PageQuery<Filter> }, I>,
  filter: object,
  list: (query: PageQuery<Filter>) => Effect.Effect<Page<A>, unknown>,
  indexes: ReadonlyArray<string>
) =>
  Effect.gen(function*() {
    const from = tap.sent.length
    const page = (pageToken: string) =>
      Effect.flatMap(validate(Request)({ ...filter, pageSize: 5, pageToken }), (request) => list(request.query))
    const first = yield* page("")
    expect(first.nextPageToken).not.toBe("")
    yield* page(first.nextPageToken)
    for (const { nodes, sql } of yield* plansSince(from)) {
      const types = nodes.map((node) => node["Node Type"])
      expect({ sql, types }).toEqual({ sql, types: expect.not.arrayContaining(["Sort"]) })
      expect(types).not.toContain("Incremental Sort")
      expect(types).not.toContain("Seq Scan")
      expect(types).not.toContain("Bitmap Heap Scan")
      const scans = nodes.filter((node) => node["Node Type"] === "Index Scan" || node["Node Type"] === "Index Only Scan")
      expect(scans.map((scan) => scan["Index Name"]).filter((name) => indexes.includes(name!))).toHaveLength(1)
    }
  })

describe(`list statements on ${testDatabaseKind}`, () => {
  layer(Services, { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("every list page, filtered or not, is one index scan in list order: no sort, no sequential scan", () =>
      Effect.gen(function*() {
        yield* seed
        const orgs = yield* Orgs
        const profiles = yield* Profiles
        const licenses = yield* Licenses
        const onboarding = yield* Onboarding
        const user = { userId: owner(7) }
        yield* servedByIndex(ListOrgsRequest, {}, orgs.list, ["orgs_newest_first"])
        yield* servedByIndex(ListProfilesRequest, {}, profiles.list, ["profiles_newest_first"])
        yield* servedByIndex(ListProfilesRequest, { orgId: owner(7) }, profiles.list, ["profiles_by_org_newest_first"])
        yield* servedByIndex(ListLicensesRequest, {}, licenses.list, ["licenses_newest_first"])
        yield* servedByIndex(ListLicensesRequest, user, licenses.list, ["licenses_by_user_newest_first"])
        yield* servedByIndex(ListOnboardingWorkflowsRequest, {}, onboarding.listRuns, ["onboarding_runs_newest_first"])
        // Every run is `completed`: either index serves the filter in order.
        yield* servedByIndex(ListOnboardingWorkflowsRequest, { status: "completed" }, onboarding.listRuns, [
          "onboarding_runs_by_status_newest_first",
          "onboarding_runs_newest_first"
        ])
      }))
  })
})
