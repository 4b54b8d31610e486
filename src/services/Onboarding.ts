import { Cause, Effect, Exit, Layer, Metric, Option } from "effect"
import { createHash, randomUUID } from "node:crypto"
import { AlreadyExists, NotFound, Unavailable } from "../domain/Errors.js"
import { LicenseId, OrgId, ProfileId, UserId, WorkflowId } from "../domain/Ids.js"
import { License } from "../domain/License.js"
import { type OnboardingRequest, OnboardingResult, type RunStatus } from "../domain/Onboarding.js"
import { Org } from "../domain/Org.js"
import type { PageQuery } from "../domain/Page.js"
import { Profile } from "../domain/Profile.js"
import { Licenses } from "./Licenses.js"
import { Orgs } from "./Orgs.js"
import { Profiles } from "./Profiles.js"
import { spanAttribute } from "./database/SpanAttribute.js"
import { WorkflowRuns } from "./WorkflowRuns.js"

/**
 * Workflow runs by outcome: created (also when a retry found the run its own lost COMMIT had
 * stored), answered from an earlier request's run (same workflowId), refused, unknown (see
 * OutcomeUnknown), failed.
 */
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
      `the database did not answer the COMMIT of workflow ${workflowId}, and could not be asked since: ` +
      `whether it was created is unknown. Get workflow ${workflowId}, or send the same request again with workflowId ${workflowId}: ` +
      "it is never created twice"
  })

/**
 * The workflow makes its records from parts already decoded (OnboardingRequest's org, profile and
 * license are the records' own fields, with their rules, and the license's rule across fields:
 * `test/services/onboarding-records.test.ts` holds the parts to the classes' rules) and from
 * new UUIDs, so their constructors' checks (`disableValidation`, public) are not run again: each
 * made the class's validator anew (Effect's `typeAST` builds a new AST for a field refined over a
 * transformation, as every id is, so the validator's cache never hits): CPU on every workflow
 * for checks that cannot fail (the cost: docs/benchmarks.md §5, "What each part of a call costs").
 */
const unchecked = { disableValidation: true } as const

/** What one call's attempts have learned of its run, carried from each attempt to the next. */
interface Attempts {
  /**
   * An attempt wrote the whole triple, so its COMMIT was sent or about to be, and no later attempt
   * has yet learned whether it took effect. A COMMIT the server refused with a SQLSTATE (40001
   * under serializable isolation) is counted here too: this side cannot tell the two apart.
   */
  commitInDoubt: boolean
  /** The run as an attempt found it stored: committed, whatever becomes of that attempt's own COMMIT. */
  found: OnboardingResult | undefined
  /** Whether the run found was made by an earlier request (a replay), not by this call's own lost COMMIT. */
  replayed: boolean
}

/**
 * Identifies a request's content, so a retried workflow id can be told apart from a reused one.
 * Computed over the normalised values: `+01:00` and `Z` spellings of one instant are one request.
 */
export const fingerprint = (request: OnboardingRequest): string => {
  const content: Array<unknown> = [request.org.name, request.profile.fullName, request.license.start, request.license.end]
  // A field a record gained later counts, named, when given. The four above stay as they were, so
  // the runs stored before it keep their fingerprints and a retry after an upgrade still matches.
  for (const part of ["org", "profile", "license"] as const) {
    for (const [field, value] of Object.entries(request[part])) {
      if (value !== undefined && !firstFields[part].includes(field)) content.push([`${part}.${field}`, value])
    }
  }
  return createHash("sha256").update(JSON.stringify(content)).digest("hex")
}

const firstFields = { org: ["name"], profile: ["fullName"], license: ["start", "end"] }

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

    const runOnce = (request: OnboardingRequest, workflowId: WorkflowId, attempts: Attempts) =>
      Effect.gen(function*() {
        const run = new OnboardingResult({
          workflowId,
          orgId: OrgId.make(randomUUID(), unchecked),
          profileId: ProfileId.make(randomUUID(), unchecked),
          licenseId: LicenseId.make(randomUUID(), unchecked)
        }, unchecked)
        const content = fingerprint(request)
        // The run first: it claims the workflow id (WorkflowRuns.claim). Its answer settles any
        // earlier attempt's COMMIT: a claim waits for a transaction still holding the id, so it
        // inserts only if none committed, and finds the run if one did.
        const claimed = yield* runs.claim(run, content)
        if (!claimed) {
          const stored = yield* replay(workflowId, content)
          // Whose run it is, the first time it is found: a later attempt finds it with no doubt left.
          if (attempts.found === undefined) attempts.replayed = !attempts.commitInDoubt
          attempts.found = stored
          attempts.commitInDoubt = false
          return stored
        }
        attempts.commitInDoubt = false
        yield* orgs.create(new Org({ ...request.org, id: run.orgId }, unchecked))
        yield* profiles.create(new Profile({ ...request.profile, id: run.profileId, orgId: run.orgId }, unchecked))
        yield* licenses.create(
          new License({ ...request.license, id: run.licenseId, userId: UserId.make(run.profileId, unchecked) }, unchecked)
        )
        attempts.commitInDoubt = true
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
          const workflowId = request.workflowId ?? WorkflowId.make(randomUUID(), unchecked)
          const attempts: Attempts = { commitInDoubt: false, found: undefined, replayed: false }
          // An operator finds a run's trace from its id.
          return spanAttribute("onboarding.workflow_id", workflowId).pipe(
            Effect.zipRight(runs.atomically(runOnce(request, workflowId, attempts))),
            Effect.catchIf(
              (error): error is Unavailable => error instanceof Unavailable && (attempts.found !== undefined || attempts.commitInDoubt),
              // A run found stored is the answer, even if the read's own transaction then failed.
              () => attempts.found !== undefined ? Effect.succeed(attempts.found) : Effect.fail(outcomeUnknown(workflowId))
            ),
            Effect.onExit((exit) => countOutcome(exit, attempts.replayed))
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
