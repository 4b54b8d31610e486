import { Effect } from "effect"
import { License, ListLicensesRequest, ListLicensesResponse } from "../domain/License.js"
import { Licenses } from "../services/Licenses.js"
import { operationsLayer, validated } from "./Operation.js"
import { LicenseOperations, LicenseRef } from "./LicenseOperations.js"

/** The handlers of LicenseOperations, over the Licenses service. */
export const LicenseOperationsLive = operationsLayer(LicenseOperations, Effect.gen(function*() {
  const licenses = yield* Licenses
  return {
    CreateLicense: validated(License, licenses.create),
    GetLicense: validated(LicenseRef, ({ id }) => licenses.get(id)),
    ListLicenses: validated(ListLicensesRequest, (request) =>
      Effect.map(
        licenses.list(request.query),
        (page) => new ListLicensesResponse({ licenses: page.items, nextPageToken: page.nextPageToken })
      ))
  }
}))
