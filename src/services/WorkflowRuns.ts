import * as SqlClient from "@effect/sql/SqlClient"
import { Clock, Context, Effect, HashMap, Iterable, Layer, Option, Schema } from "effect"
import type { Unavailable } from "../domain/Errors.js"
import { WorkflowId } from "../domain/Ids.js"
import { OnboardingRun, type OnboardingResult, type RunStatus } from "../domain/Onboarding.js"
import type { Page, PageQuery } from "../domain/Page.js"
import { atomically, creationTime, InMemoryStore, inMemoryPage, modifyTables, readTables, type StoredRun } from "./records/InMemoryStore.js"
import { keysetAfter, keysetPage } from "./records/KeysetPage.js"
import { preparedStatements } from "./records/Prepared.js"
import { findStored } from "./records/Records.js"
import { createdAt, sqlTable } from "./records/SqlTable.js"
import { databaseOperation, databaseRead, transaction } from "./database/Transient.js"

export type { StoredRun }

/** The run's row; its status is "completed", the only one a run reaches (it commits with its records). */
export const runs = sqlTable("onboarding_runs", {
  workflowId: "workflow_id",
  orgId: "org_id",
  profileId: "profile_id",
  licenseId: "license_id",
  status: "status",
  fingerprint: "request_fingerprint"
})

/**
 * Where the workflow keeps its runs, and its unit of work: what the one workflow (Onboarding.ts)
 * needs of a database, given by the SQL tables or by the in-memory store, so that both run the
 * same workflow.
 */
export interface RunStore {
  /**
   * `unit`, all or nothing. SQL: one transaction, retried as a whole within the operation budget
   * when it fails for a transient reason. In memory: staged apart and applied in one update, or
   * not at all; tried again from the start when a concurrent unit wrote the same keys first.
   */
  readonly atomically: <A, E, R>(unit: Effect.Effect<A, E, R>) => Effect.Effect<A, E | Unavailable, R>
  /**
   * Inside `atomically`: records the run under its workflow id, unless a run holds that id (then
   * false). A concurrent unit with the same id waits for this one to end, then finds its run.
   */
  readonly claim: (run: OnboardingResult, fingerprint: string) => Effect.Effect<boolean, Unavailable>
  /** The run under the id, with the fingerprint of the request that made it. */
  readonly find: (workflowId: WorkflowId) => Effect.Effect<Option.Option<StoredRun>, Unavailable>
  /** A page of runs, newest first. */
  readonly list: (query: PageQuery<RunStatus | undefined>) => Effect.Effect<Page<OnboardingRun>, Unavailable>
}

export class WorkflowRuns extends Context.Tag("WorkflowRuns")<WorkflowRuns, RunStore>() {
  /** The onboarding_runs table. */
  static readonly Sql = Layer.effect(
    WorkflowRuns,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const statements = yield* preparedStatements
      const selectRun = statements.rows(`select ${runs.selectList}, ${createdAt} from onboarding_runs where workflow_id = $1`)
      const findRow = findStored({
        Result: Schema.Struct({ ...OnboardingRun.fields, fingerprint: Schema.String }),
        execute: (id: WorkflowId) => selectRun([id])
      })
      /**
       * The run row goes first in the workflow's transaction: it claims the workflow id, so a
       * concurrent duplicate blocks on it until this transaction ends and then finds the finished
       * run instead of creating a second triple. Its foreign keys are deferred to the commit, when
       * the three rows exist.
       */
      const insertRun = statements.count(runs.insertUnlessPresent("workflow_id"))
      const runsPage = keysetPage(OnboardingRun, (run) => run.workflowId)
      /** Newest first, served by onboarding_runs_newest_first, or onboarding_runs_by_status_newest_first. */
      const selectRuns = (query: PageQuery<RunStatus | undefined>) => (limit: number) =>
        statements.statement(sql`select ${sql.literal(runs.selectList)}, ${sql.literal(createdAt)}
            from onboarding_runs
            where ${sql.and([
          ...(query.filter === undefined ? [] : [sql`status = ${query.filter}`]),
          ...keysetAfter(sql, "workflow_id", query.after)
        ])}
            order by created_at desc, workflow_id desc limit ${limit}`)
      return WorkflowRuns.of({
        atomically: (unit) => databaseOperation(transaction(sql)(unit)),
        claim: (run, fingerprint) =>
          databaseOperation(insertRun(runs.values({ ...run, status: "completed", fingerprint }))).pipe(
            Effect.map((inserted) => inserted > 0)
          ),
        find: (workflowId) =>
          databaseRead(findRow(workflowId)).pipe(
            Effect.map(Option.map(({ fingerprint, ...run }) => ({ run: new OnboardingRun(run), fingerprint })))
          ),
        list: (query) => databaseRead(runsPage(query, selectRuns(query)))
      })
    })
  )

  /** The runs of the in-memory store, beside the records of the in-memory Orgs, Profiles and Licenses. */
  static readonly InMemory = Layer.effect(
    WorkflowRuns,
    Effect.map(InMemoryStore, (store) =>
      WorkflowRuns.of({
        atomically: atomically(store),
        claim: (run, fingerprint) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            modifyTables(store, (tables) => {
              if (HashMap.has(tables.runs, run.workflowId)) return [false, tables] as const
              const [createdAt, later] = creationTime(tables, now)
              const stored = { run: new OnboardingRun({ ...run, status: "completed", createdAt }), fingerprint }
              return [true, { ...later, runs: HashMap.set(tables.runs, run.workflowId, stored) }] as const
            })),
        find: (workflowId) => Effect.map(readTables(store), (tables) => HashMap.get(tables.runs, workflowId)),
        list: (query) =>
          Effect.map(readTables(store), (tables) =>
            inMemoryPage(
              Iterable.map(HashMap.values(tables.runs), ({ run }) => ({
                value: run,
                position: { createdAt: run.createdAt, id: run.workflowId }
              })),
              query,
              (run, status) => run.status === status
            ))
      }))
  )
}
