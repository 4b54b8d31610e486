import { Effect } from "effect"
import { ListOrgsRequest, ListOrgsResponse, Org } from "../domain/Org.js"
import { Orgs } from "../services/Orgs.js"
import { operationsLayer, validated } from "./Operation.js"
import { OrgOperations, OrgRef } from "./OrgOperations.js"

/** The handlers of OrgOperations, over the Orgs service. */
export const OrgOperationsLive = operationsLayer(OrgOperations, Effect.gen(function*() {
  const orgs = yield* Orgs
  return {
    CreateOrg: validated(Org, orgs.create),
    GetOrg: validated(OrgRef, ({ id }) => orgs.get(id)),
    ListOrgs: validated(ListOrgsRequest, (request) =>
      Effect.map(orgs.list(request.query), (page) => new ListOrgsResponse({ orgs: page.items, nextPageToken: page.nextPageToken })))
  }
}))
