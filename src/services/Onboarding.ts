import { Cause, Effect, Exit, Layer, Metric, Option } from "effect"
import { randomUUID } from "node:crypto"
import { AlreadyExists, NotFound, Unavailable } from "../domain/Errors.js"
import { LicenseId, OrgId, ProfileId, UserId, WorkflowId } from "../domain/Ids.js"
import { License } from "../domain/License.js"
import { type OnboardingRequest, OnboardingResult, type RunStatus } from "../domain/Onboarding.js"
import { fingerprint } from "../domain/OnboardingFingerprint.js"
import { Org } from "../domain/Org.js"
import type { PageQuery } from "../domain/Page.js"
import { Profile } from "../domain/Profile.js"
import { Licenses } from "./Licenses.js"
import { Orgs } from "./Orgs.js"
import { Profiles } from "./Profiles.js"
import { spanAttribute } from "./SpanAttribute.js"
import { WorkflowRuns } from "./WorkflowRuns.js"

/** Workflow runs by outcome: created, answered from an earlier run (same workflowId), refused, failed. */
export const workflowOutcomes = Metric.counter("onboarding_workflows_total", {
  description:
    "CreateOnboardingWorkflow outcomes: created, replayed (answered from an earlier run), refused (the id holds another request), unknown (a COMMIT went unanswered and the database could not be asked since), failed"
})

const outcomes = {
  created: Metric.tagged(workflowOutcomes, "outcome", "created"),
  replayed: Metric.tagged(workflowOutcomes, "outcome", "replayed"),
  refused: Metric.tagged(workflowOutcomes, "outcome", "refused"),
  unknown: Metric.tagged(workflowOutcomes, "outcome", "unknown"),
  failed: Metric.tagged(workflowOutcomes, "outcome", "failed")
}

const countOutcome = (exit: Exit.Exit<unknown, unknown>, replayed: boolean) =>
  Metric.increment(
    Exit.isSuccess(exit)
      ? (replayed ? outcomes.replayed : outcomes.created)
      : Option.match(Cause.failureOption(exit.cause), {
        onNone: () => outcomes.failed,
        onSome: (error) =>
          error instanceof AlreadyExists ? outcomes.refused : error instanceof OutcomeUnknown ? outcomes.unknown : outcomes.failed
      })
  )

/**
 * `unavailable`, when a COMMIT of this workflow went unanswered and no later attempt could ask the
 * database whether it had committed (each attempt claims the run's id first, so the one after a
 * lost COMMIT finds the run if it committed): the caller is given the workflow id, under which
 * the request can be looked up or sent again without onboarding twice. The server chose the id
 * when the request had none, so without it a caller could not tell.
 */
class OutcomeUnknown extends Unavailable {}

const outcomeUnknown = (workflowId: WorkflowId) =>
  new OutcomeUnknown({
    message:
      `the database connection was lost while committing workflow ${workflowId}, and the database could not be asked since: ` +
      `whether it was created is unknown. Get workflow ${workflowId}, or send the same request again with workflowId ${workflowId}: ` +
      "it is never created twice"
  })

export class Onboarding extends Effect.Service<Onboarding>()("Onboarding", {
  effect: Effect.gen(function*() {
    const orgs = yield* Orgs
    const profiles = yield* Profiles
    const licenses = yield* Licenses
    const runs = yield* WorkflowRuns

    const replay = (workflowId: WorkflowId, content: string) =>
      Effect.flatMap(runs.find(workflowId), (stored) =>
        Option.isSome(stored) && stored.value.fingerprint === content
          ? Effect.succeed(new OnboardingResult(stored.value.run))
          : Effect.fail(new AlreadyExists({ resource: "workflow", id: workflowId })))

    const runOnce = (request: OnboardingRequest, workflowId: WorkflowId, replayed: () => void, committing: () => void) =>
      Effect.gen(function*() {
        const run = new OnboardingResult({
          workflowId,
          orgId: OrgId.make(randomUUID()),
          profileId: ProfileId.make(randomUUID()),
          licenseId: LicenseId.make(randomUUID())
        })
        const content = fingerprint(request)
        // The run first: it claims the workflow id (WorkflowRuns.claim).
        if (!(yield* runs.claim(run, content))) {
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
        committing()
        return run
      })

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
          // Set once an attempt has written the whole triple: its COMMIT comes next. An attempt is only
          // tried again when it failed, so if one whose COMMIT was sent failed, and no later attempt
          // could find its run, whether it committed is unknown (see OutcomeUnknown).
          let committing = false
          const unit = runOnce(request, workflowId, () => (answeredFromEarlier = true), () => (committing = true))
          // An operator finds a run's trace from its id.
          return spanAttribute("onboarding.workflow_id", workflowId).pipe(
            Effect.zipRight(runs.atomically(unit)),
            Effect.catchIf(
              (error): error is Unavailable => error instanceof Unavailable && committing,
              () => Effect.fail(outcomeUnknown(workflowId))
            ),
            Effect.onExit((exit) => countOutcome(exit, answeredFromEarlier))
          )
        }),

      getRun: (workflowId: WorkflowId) =>
        Effect.flatMap(runs.find(workflowId), (stored) =>
          Option.isSome(stored)
            ? Effect.as(spanAttribute("onboarding.workflow_id", workflowId), stored.value.run)
            : Effect.fail(new NotFound({ resource: "workflow", id: workflowId }))),

      listRuns: (query: PageQuery<RunStatus | undefined>) => runs.list(query)
    } as const
  }),
  dependencies: [Orgs.Default, Profiles.Default, Licenses.Default, WorkflowRuns.Sql]
}) {
  /** The same workflow over the in-memory Orgs, Profiles, Licenses and runs (InMemoryStore). */
  static readonly InMemory = Onboarding.DefaultWithoutDependencies.pipe(
    Layer.provide([Orgs.InMemory, Profiles.InMemory, Licenses.InMemory, WorkflowRuns.InMemory])
  )
}
