import { Schema } from "effect"
import { described, record } from "./Described.js"
import { LicenseId, UserId } from "./Ids.js"
import { listRequest, nextPageToken, optionalFilter, type PageQuery, pageQuery } from "./Page.js"
import { CanonicalTimestamp, type Timestamp as T, Timestamp, toMicros } from "./Timestamp.js"

/**
 * The rule that a period ends strictly after it starts. `startName` is how the message refers to
 * the start field, so a nested request can say `license.end: must be after license.start`.
 */
export const endsAfterStart = (startName: string) =>
<S extends Schema.Schema.Any & { readonly Type: { readonly start: T; readonly end: T } }>(self: S) =>
  self.pipe(Schema.filter((period: Schema.Schema.Type<S>) =>
    toMicros(period.end) > toMicros(period.start) || { path: ["end"], message: `must be after ${startName}` }
  ))

export class License extends Schema.Class<License>("License")(
  Schema.Struct({
    id: described(LicenseId, "the license's id: a UUID the caller chooses"),
    userId: described(UserId, "the profile (person) that holds the license (a UUID)"),
    start: described(Timestamp, "when the license starts: an RFC 3339 time, written back in UTC", {
      examples: [CanonicalTimestamp.make("2026-01-01T00:00:00Z")]
    }),
    end: described(Timestamp, "when the license ends: an RFC 3339 time after start, written back in UTC", {
      examples: [CanonicalTimestamp.make("2027-01-01T00:00:00Z")]
    })
  }).pipe(endsAfterStart("start")),
  record("License", "A license held by a profile for a period; end is after start")
) {}

/** Licenses, optionally only those of one user. */
export class ListLicensesRequest extends Schema.Class<ListLicensesRequest>("ListLicensesRequest")(
  listRequest("licenses", { userId: optionalFilter(UserId, "only the licenses of this user (a UUID)") }, (request) => request.userId || ""),
  record("ListLicensesRequest", "Licenses, newest first, a page at a time")
) {
  get query(): PageQuery<UserId | undefined> {
    return pageQuery("licenses", this, this.userId || undefined)
  }
}

export class ListLicensesResponse extends Schema.Class<ListLicensesResponse>("ListLicensesResponse")({
  licenses: described(Schema.Array(License), "this page of licenses, newest first"),
  nextPageToken
}, record("ListLicensesResponse", "A page of licenses")) {}
