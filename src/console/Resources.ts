/**
 * The services' records, as their REST APIs answer them and the console shows them: the JSON side
 * of the client package's own schemas (types only: nothing of the package is loaded in the browser).
 */
import type {
  License as LicenseSchema,
  OnboardingResult,
  OnboardingRun,
  Org as OrgSchema,
  Profile as ProfileSchema
} from "onboarding-services-client"

export type Org = typeof OrgSchema.Encoded
export type Profile = typeof ProfileSchema.Encoded
export type License = typeof LicenseSchema.Encoded
export type Run = typeof OnboardingRun.Encoded
export type Created = typeof OnboardingResult.Encoded
