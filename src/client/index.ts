/**
 * `onboarding-services-client`'s entry: the Effect line is checked, then the clients load.
 * An ES module graph links whole before any of it runs, and the clients' libraries fail to link
 * on another Effect line, so the check can only come first if the clients are imported after it.
 * The package's types are `Exports.ts`'s (package.json: `types`); the names below are that
 * module's, and test/client-package.test.ts holds the two lists equal.
 */
import { requireEffectLine } from "./EffectLine.js"

await requireEffectLine()

export const {
  AlreadyExists,
  bearerToken,
  connectClient,
  InvalidArgument,
  License,
  LicenseHttpApi,
  LicenseOperations,
  LicenseService,
  ListLicensesResponse,
  ListOnboardingWorkflowsResponse,
  ListOrgsResponse,
  ListProfilesResponse,
  NotFound,
  OnboardingResult,
  OnboardingRun,
  Org,
  OrgHttpApi,
  OrgOperations,
  OrgService,
  Profile,
  ProfileHttpApi,
  ProfileOperations,
  ProfileService,
  restClient,
  rpcClient,
  rpcProtocol,
  Unavailable,
  WorkflowHttpApi,
  WorkflowOperations,
  WorkflowService
} = await import("./Exports.js")
