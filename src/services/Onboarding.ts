import * as SqlClient from "@effect/sql/SqlClient"
import { Cause, Clock, Effect, Exit, HashMap, Iterable, Layer, Metric, Option, Ref, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { AlreadyExists, NotFound, type Unavailable } from "../domain/Errors.js"
import { LicenseId, OrgId, ProfileId, UserId, WorkflowId } from "../domain/Ids.js"
import { License } from "../domain/License.js"
import { OnboardingRequest, OnboardingResult, OnboardingRun, type RunStatus } from "../domain/Onboarding.js"
import { fingerprint } from "../domain/OnboardingFingerprint.js"
import { Org } from "../domain/Org.js"
import type { PageQuery } from "../domain/Page.js"
import { Profile } from "../domain/Profile.js"
import { creationTime, InMemoryStore, inMemoryPage } from "./InMemoryStore.js"
import { keysetAfter, keysetPage } from "./KeysetPage.js"
import { Licenses } from "./Licenses.js"
import { Orgs } from "./Orgs.js"
import { Profiles } from "./Profiles.js"
import { preparedStatements } from "./Prepared.js"
import { findStored, getOrNotFound } from "./Records.js"
import { utcText } from "./SqlText.js"
import { spanAttribute } from "./SpanAttribute.js"
import { databaseOperation, transaction } from "./Transient.js"

const runsPage = keysetPage(OnboardingRun, (run) => run.workflowId)

const StoredRun = Schema.Struct({
  ...OnboardingRun.fields,
  fingerprint: Schema.String
})

/** Workflow runs by outcome: created, answered from an earlier run (same workflowId), refused, failed. */
export const workflowOutcomes = Metric.counter("onboarding_workflows_total", {
  description: "CreateOnboardingWorkflow outcomes: created, replayed (answered from an earlier run), refused (the id holds another request), failed"
})

const outcomes = {
  created: Metric.tagged(workflowOutcomes, "outcome", "created"),
  replayed: Metric.tagged(workflowOutcomes, "outcome", "replayed"),
  refused: Metric.tagged(workflowOutcomes, "outcome", "refused"),
  failed: Metric.tagged(workflowOutcomes, "outcome", "failed")
}

const countOutcome = (exit: Exit.Exit<unknown, unknown>, replayed: boolean) =>
  Metric.increment(
    Exit.isSuccess(exit)
      ? (replayed ? outcomes.replayed : outcomes.created)
      : Option.exists(Cause.failureOption(exit.cause), (error) => error instanceof AlreadyExists)
      ? outcomes.refused
      : outcomes.failed
  )

export class Onboarding extends Effect.Service<Onboarding>()("Onboarding", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const orgs = yield* Orgs
    const profiles = yield* Profiles
    const licenses = yield* Licenses
    const statements = yield* preparedStatements

    const selectRun = statements.rows(`select workflow_id as "workflowId", org_id as "orgId", profile_id as "profileId",
                                       license_id as "licenseId", status, request_fingerprint as fingerprint,
                                       ${utcText("created_at")} as "createdAt"
                                from onboarding_runs where workflow_id = $1`)
    const findRun = findStored({ Request: WorkflowId, Result: StoredRun, execute: (id) => selectRun([id]) })

    /** Newest first, served by onboarding_runs_newest_first, or onboarding_runs_by_status_newest_first. */
    const selectRuns = (query: PageQuery<RunStatus | undefined>) => (limit: number) =>
      sql`select workflow_id as "workflowId", org_id as "orgId", profile_id as "profileId",
                 license_id as "licenseId", status, ${sql.literal(utcText("created_at"))} as "createdAt"
          from onboarding_runs
          where ${sql.and([
        ...(query.filter === undefined ? [] : [sql`status = ${query.filter}`]),
        ...keysetAfter(sql, "workflow_id", query.after)
      ])}
          order by created_at desc, workflow_id desc limit ${limit}`

    /**
     * The run row goes first: it claims the workflow id, so a concurrent duplicate blocks on it
     * until this transaction ends and then finds the finished run instead of creating a second
     * triple. Its foreign keys are deferred to the commit, when the three rows exist.
     */
    const insertRun = statements.count(`insert into onboarding_runs
                                  (workflow_id, org_id, profile_id, license_id, request_fingerprint, status)
                                values ($1, $2, $3, $4, $5, 'completed')
                                on conflict (workflow_id) do nothing`)
    const claimRun = (run: OnboardingResult, fingerprint: string) =>
      insertRun([run.workflowId, run.orgId, run.profileId, run.licenseId, fingerprint])

    const replay = (workflowId: WorkflowId, fingerprint: string) =>
      Effect.flatMap(findRun(workflowId), (stored) =>
        stored._tag === "Some" && stored.value.fingerprint === fingerprint
          ? Effect.succeed(new OnboardingResult(stored.value))
          : Effect.fail(new AlreadyExists({ resource: "workflow", id: workflowId })))

    const runOnce = (request: OnboardingRequest, workflowId: WorkflowId, replayed: () => void) =>
      Effect.gen(function*() {
        const run = new OnboardingResult({
          workflowId,
          orgId: OrgId.make(randomUUID()),
          profileId: ProfileId.make(randomUUID()),
          licenseId: LicenseId.make(randomUUID())
        })
        const content = fingerprint(request)
        const claimed = yield* claimRun(run, content)
        if (claimed === 0) {
          replayed()
          return yield* replay(workflowId, content)
        }

        yield* orgs.create(new Org({ id: run.orgId, name: request.org.name }))
        yield* profiles.create(new Profile({ id: run.profileId, fullName: request.profile.fullName, orgId: run.orgId }))
        yield* licenses.create(
          new License({
            id: run.licenseId,
            userId: UserId.make(run.profileId),
            start: request.license.start,
            end: request.license.end
          })
        )
        return run
      }).pipe(transaction(sql))

    return {
      /**
       * Creates an org, a profile in it and a license for that profile, atomically. The workflow id
       * is fixed before the first attempt, so a retry after an ambiguous commit (connection lost
       * while committing) finds its own run rather than creating a second triple.
       */
      create: (request: OnboardingRequest): Effect.Effect<OnboardingResult, AlreadyExists | Unavailable> =>
        Effect.suspend(() => {
          const workflowId = request.workflowId ?? WorkflowId.make(randomUUID())
          let answeredFromEarlier = false
          // An operator finds a run's trace from its id.
          return spanAttribute("onboarding.workflow_id", workflowId).pipe(
            Effect.zipRight(databaseOperation(runOnce(request, workflowId, () => (answeredFromEarlier = true)))),
            Effect.onExit((exit) => countOutcome(exit, answeredFromEarlier))
          )
        }),

      getRun: (workflowId: WorkflowId) =>
        getOrNotFound("workflow", findRun)(workflowId).pipe(
          Effect.tap(() => spanAttribute("onboarding.workflow_id", workflowId)),
          Effect.map(({ fingerprint: _, ...run }) => new OnboardingRun(run)),
          databaseOperation
        ),

      listRuns: (query: PageQuery<RunStatus | undefined>) => runsPage(query, selectRuns(query)).pipe(databaseOperation)
    } as const
  }),
  dependencies: [Orgs.Default, Profiles.Default, Licenses.Default]
}) {
  /**
   * The same rules, kept in memory (no SQL): the run and its three records land in one atomic
   * update of the shared store or not at all, and a repeated workflow id finds the finished run.
   */
  static readonly InMemory = Layer.effect(
    Onboarding,
    Effect.map(InMemoryStore, (store) =>
      Onboarding.make({
        create: (request) =>
          Effect.gen(function*() {
            const workflowId = request.workflowId ?? WorkflowId.make(randomUUID())
            const now = yield* Clock.currentTimeMillis
            const result = new OnboardingResult({
              workflowId,
              orgId: OrgId.make(randomUUID()),
              profileId: ProfileId.make(randomUUID()),
              licenseId: LicenseId.make(randomUUID())
            })
            return yield* Effect.flatten(Ref.modify(store, (tables) => {
              const earlier = HashMap.get(tables.runs, workflowId)
              if (Option.isSome(earlier)) {
                return [
                  earlier.value.fingerprint === fingerprint(request)
                    ? Effect.succeed(new OnboardingResult(earlier.value.run))
                    : Effect.fail(new AlreadyExists({ resource: "workflow", id: workflowId })),
                  tables
                ] as const
              }
              // One creation time for the four rows, as the transaction's now() gives them in SQL.
              const [createdAt, later] = creationTime(tables, now)
              const run = new OnboardingRun({ ...result, status: "completed", createdAt })
              const positioned = <A>(value: A, id: string) => ({ value, position: { createdAt, id } })
              return [Effect.succeed(result), {
                ...later,
                orgs: HashMap.set(
                  tables.orgs,
                  result.orgId,
                  positioned(new Org({ id: result.orgId, name: request.org.name }), result.orgId)
                ),
                profiles: HashMap.set(
                  tables.profiles,
                  result.profileId,
                  positioned(
                    new Profile({ id: result.profileId, fullName: request.profile.fullName, orgId: result.orgId }),
                    result.profileId
                  )
                ),
                licenses: HashMap.set(
                  tables.licenses,
                  result.licenseId,
                  positioned(
                    new License({
                      id: result.licenseId,
                      userId: UserId.make(result.profileId),
                      start: request.license.start,
                      end: request.license.end
                    }),
                    result.licenseId
                  )
                ),
                runs: HashMap.set(tables.runs, workflowId, { run, fingerprint: fingerprint(request) })
              }] as const
            })).pipe(Effect.onExit((exit) => countOutcome(exit, Exit.isSuccess(exit) && exit.value !== result)))
          }),
        getRun: (workflowId) =>
          Effect.flatMap(Ref.get(store), (tables) =>
            Option.match(HashMap.get(tables.runs, workflowId), {
              onNone: () => Effect.fail(new NotFound({ resource: "workflow", id: workflowId })),
              onSome: (stored) => Effect.succeed(stored.run)
            })),
        listRuns: (query) =>
          Effect.map(Ref.get(store), (tables) =>
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
