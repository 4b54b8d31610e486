import * as HttpRouter from "@effect/platform/HttpRouter"
import { Effect, Schema } from "effect"
import { LicenseId, OrgId, ProfileId, WorkflowId } from "../../domain/Ids.js"
import { License } from "../../domain/License.js"
import { OnboardingRequest, OnboardingResult, OnboardingRun } from "../../domain/Onboarding.js"
import { Org } from "../../domain/Org.js"
import { Profile } from "../../domain/Profile.js"
import { validate } from "../../domain/Validation.js"
import { Licenses } from "../../services/Licenses.js"
import { Onboarding } from "../../services/Onboarding.js"
import { Orgs } from "../../services/Orgs.js"
import { Profiles } from "../../services/Profiles.js"
import { jsonObjectBody } from "./RequestBody.js"
import { pathId, resourceRoutes } from "./resourceRoutes.js"
import { refuseOtherMethods, restCall } from "./RestCall.js"

export const orgRoutes = resourceRoutes({
  path: "/orgs",
  name: "org",
  id: OrgId,
  model: Org,
  create: (org) => Effect.flatMap(Orgs, (orgs) => orgs.create(org)),
  get: (id) => Effect.flatMap(Orgs, (orgs) => orgs.get(id))
})

export const profileRoutes = resourceRoutes({
  path: "/profiles",
  name: "profile",
  id: ProfileId,
  model: Profile,
  create: (profile) => Effect.flatMap(Profiles, (profiles) => profiles.create(profile)),
  get: (id) => Effect.flatMap(Profiles, (profiles) => profiles.get(id))
})

export const licenseRoutes = resourceRoutes({
  path: "/licenses",
  name: "license",
  id: LicenseId,
  model: License,
  create: (license) => Effect.flatMap(Licenses, (licenses) => licenses.create(license)),
  get: (id) => Effect.flatMap(Licenses, (licenses) => licenses.get(id))
})

/** Proto3 has no "absent" for a string: an empty workflow id means none was given. */
const withoutEmptyWorkflowId = (body: Record<string, unknown>) => {
  const options = body["workflowOptions"]
  if (typeof options !== "object" || options === null) return body
  const { workflowId, ...rest } = options as Record<string, unknown>
  return workflowId === "" || workflowId === null ? { ...body, workflowOptions: rest } : body
}

const RunPath = Schema.Struct({ id: WorkflowId })
const resultJson = Schema.encodeSync(OnboardingResult)
const runJson = Schema.encodeSync(OnboardingRun)
const workflows = "/workflow/workflows/onboarding"

export const workflowRoutes = HttpRouter.empty.pipe(
  HttpRouter.post(
    workflows,
    restCall(Effect.gen(function*() {
      const request = yield* validate(OnboardingRequest)(withoutEmptyWorkflowId(yield* jsonObjectBody))
      return resultJson(yield* (yield* Onboarding).create(request))
    }))
  ),
  refuseOtherMethods(workflows, ["POST"]),
  HttpRouter.get(
    `${workflows}/:id`,
    restCall(Effect.gen(function*() {
      const { id } = yield* validate(RunPath)({ id: yield* pathId })
      return { workflow: runJson(yield* (yield* Onboarding).getRun(id)) }
    }))
  ),
  refuseOtherMethods(`${workflows}/:id`, ["GET"])
)
