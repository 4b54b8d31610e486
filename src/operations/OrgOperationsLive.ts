import { Effect } from "effect"
import { ListOrgsResponse } from "../domain/Org.js"
import { Orgs } from "../services/Orgs.js"
import { operationsLayer } from "./Operation.js"
import { OrgOperations } from "../contract/OrgOperations.js"

/** The handlers of OrgOperations, over the Orgs service: each takes its domain request, decoded before it runs (`operation`). */
export const OrgOperationsLive = operationsLayer(OrgOperations, Effect.gen(function*() {
  const orgs = yield* Orgs
  return {
    CreateOrg: orgs.create,
    GetOrg: ({ id }) => orgs.get(id),
    ListOrgs: (request) =>
      Effect.map(orgs.list(request.query), (page) => new ListOrgsResponse({ orgs: page.items, nextPageToken: page.nextPageToken }))
  }
}))
