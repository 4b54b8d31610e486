import { Schema } from "effect"
import { LicenseId, UserId } from "./Ids.js"
import { listRequest, optionalFilter, type PageQuery, pageQuery } from "./Page.js"
import { type Timestamp as T, Timestamp, toMicros } from "./Timestamp.js"

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
    id: LicenseId,
    userId: UserId,
    start: Timestamp,
    end: Timestamp
  }).pipe(endsAfterStart("start"))
) {}

/** Licenses, optionally only those of one user. */
export class ListLicensesRequest extends Schema.Class<ListLicensesRequest>("ListLicensesRequest")(
  listRequest("licenses", { userId: optionalFilter(UserId) }, (request) => request.userId || "")
) {
  get query(): PageQuery<UserId | undefined> {
    return pageQuery("licenses", this, this.userId || undefined)
  }
}

export class ListLicensesResponse extends Schema.Class<ListLicensesResponse>("ListLicensesResponse")({
  licenses: Schema.Array(License),
  nextPageToken: Schema.String
}) {}
