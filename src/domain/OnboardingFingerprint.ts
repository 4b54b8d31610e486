import { createHash } from "node:crypto"
import type { OnboardingRequest } from "./Onboarding.js"

/**
 * Identifies a request's content, so a retried workflow id can be told apart from a reused one.
 * Computed over the normalised values: `+01:00` and `Z` spellings of one instant are one request.
 * (Apart from `OnboardingRequest`: the client package carries the domain, and node:crypto is the
 * server's.)
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
