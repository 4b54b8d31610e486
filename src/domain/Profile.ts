import { Schema } from "effect"
import { OrgId, ProfileId } from "./Ids.js"
import { Name } from "./Name.js"
import { listRequest, optionalFilter, type PageQuery, pageQuery } from "./Page.js"

/** A person in an org. The org's existence is not checked on direct creates (contract §3.3). */
export class Profile extends Schema.Class<Profile>("Profile")({
  id: ProfileId,
  fullName: Name,
  orgId: OrgId
}) {}

/** Profiles, optionally only those of one org. */
export class ListProfilesRequest extends Schema.Class<ListProfilesRequest>("ListProfilesRequest")(
  listRequest("profiles", { orgId: optionalFilter(OrgId) }, (request) => request.orgId || "")
) {
  get query(): PageQuery<OrgId | undefined> {
    return pageQuery("profiles", this, this.orgId || undefined)
  }
}

export class ListProfilesResponse extends Schema.Class<ListProfilesResponse>("ListProfilesResponse")({
  profiles: Schema.Array(Profile),
  nextPageToken: Schema.String
}) {}
