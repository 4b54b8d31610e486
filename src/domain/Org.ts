import { Schema } from "effect"
import { described, record } from "./Described.js"
import { OrgId } from "./Ids.js"
import { Name, nameRule } from "./Name.js"
import { listRequest, nextPageToken, type PageQuery, pageQuery } from "./Page.js"

/** An org as the service writes it, every field always; created with the same fields. */
export class Org extends Schema.Class<Org>("Org")({
  id: described(OrgId, "the org's id: a UUID the caller chooses"),
  name: described(Name, `the org's display name: ${nameRule}`, { examples: ["Acme Corporation"] })
}, record("Org", "An organization: a customer being onboarded")) {}

export class ListOrgsRequest
  extends Schema.Class<ListOrgsRequest>("ListOrgsRequest")(listRequest("orgs", {}, () => ""), record("ListOrgsRequest", "Orgs, newest first, a page at a time"))
{
  get query(): PageQuery<undefined> {
    return pageQuery("orgs", this, undefined)
  }
}

export class ListOrgsResponse extends Schema.Class<ListOrgsResponse>("ListOrgsResponse")({
  orgs: described(Schema.Array(Org), "this page of orgs, newest first"),
  nextPageToken: nextPageToken
}, record("ListOrgsResponse", "A page of orgs")) {}
