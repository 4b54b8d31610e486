import { createHash } from "node:crypto"
import type { OnboardingRequest } from "./Onboarding.js"

/**
 * Identifies a request's content, so a retried workflow id can be told apart from a reused one.
 * Computed over the normalised values: `+01:00` and `Z` spellings of one instant are one request.
 * (Apart from `OnboardingRequest`: the client package carries the domain, and node:crypto is the
 * server's.)
 */
export const fingerprint = (request: OnboardingRequest): string => {
  const content = [request.org.name, request.profile.fullName, request.license.start, request.license.end]
  return createHash("sha256").update(JSON.stringify(content)).digest("hex")
}
