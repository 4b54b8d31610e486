import { Effect } from "effect"
import { ListLicensesResponse } from "../domain/License.js"
import { Licenses } from "../services/Licenses.js"
import { operationsLayer } from "./Operation.js"
import { LicenseOperations } from "../contract/LicenseOperations.js"

/** The handlers of LicenseOperations, over the Licenses service. */
export const LicenseOperationsLive = operationsLayer(LicenseOperations, Effect.gen(function*() {
  const licenses = yield* Licenses
  return {
    CreateLicense: licenses.create,
    GetLicense: ({ id }) => licenses.get(id),
    ListLicenses: (request) =>
      Effect.map(
        licenses.list(request.query),
        (page) => new ListLicensesResponse({ licenses: page.items, nextPageToken: page.nextPageToken })
      )
  }
}))
