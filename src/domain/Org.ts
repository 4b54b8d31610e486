import { Schema } from "effect"
import { OrgId } from "./Ids.js"
import { Name } from "./Name.js"
import { listRequest, type PageQuery, pageQuery } from "./Page.js"

export class Org extends Schema.Class<Org>("Org")({
  id: OrgId,
  name: Name
}) {}

export class ListOrgsRequest extends Schema.Class<ListOrgsRequest>("ListOrgsRequest")(listRequest("orgs", {}, () => "")) {
  get query(): PageQuery<undefined> {
    return pageQuery("orgs", this, undefined)
  }
}

export class ListOrgsResponse extends Schema.Class<ListOrgsResponse>("ListOrgsResponse")({
  orgs: Schema.Array(Org),
  nextPageToken: Schema.String
}) {}
