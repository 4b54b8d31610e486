import { Schema } from "effect"
import { described, record } from "./Described.js"
import { OrgId, ProfileId } from "./Ids.js"
import { Name, nameRule } from "./Name.js"
import { listRequest, nextPageToken, optionalFilter, type PageQuery, pageQuery } from "./Page.js"

/** A person in an org. The org's existence is not checked on direct creates (contract §3). */
export class Profile extends Schema.Class<Profile>("Profile")({
  id: described(ProfileId, "the profile's id: a UUID the caller chooses"),
  fullName: described(Name, `the person's full name: ${nameRule}`, { examples: ["Ada Lovelace"] }),
  orgId: described(OrgId, "the org the person belongs to (a UUID)")
}, record("Profile", "A person in an org")) {}

/** Profiles, optionally only those of one org. */
export class ListProfilesRequest extends Schema.Class<ListProfilesRequest>("ListProfilesRequest")(
  listRequest("profiles", { orgId: optionalFilter(OrgId, "only the profiles of this org (a UUID)") }, (request) => request.orgId || ""),
  record("ListProfilesRequest", "Profiles, newest first, a page at a time")
) {
  get query(): PageQuery<OrgId | undefined> {
    return pageQuery("profiles", this, this.orgId || undefined)
  }
}

export class ListProfilesResponse extends Schema.Class<ListProfilesResponse>("ListProfilesResponse")({
  profiles: described(Schema.Array(Profile), "this page of profiles, newest first"),
  nextPageToken
}, record("ListProfilesResponse", "A page of profiles")) {}
