import * as Rpc from "@effect/rpc/Rpc"
import * as RpcGroup from "@effect/rpc/RpcGroup"
import { Effect, Schema } from "effect"
import { AlreadyExists, InvalidArgument, NotFound, Unavailable } from "../domain/Errors.js"
import { LicenseId } from "../domain/Ids.js"
import { License } from "../domain/License.js"
import { Licenses } from "../services/Licenses.js"

/** The license service's operations, declared once for every style (see OrgOperations). */
export class LicenseOperations extends RpcGroup.make(
  Rpc.make("CreateLicense", {
    payload: License,
    success: License,
    error: Schema.Union(InvalidArgument, AlreadyExists, Unavailable)
  }),
  Rpc.make("GetLicense", {
    payload: { id: LicenseId },
    success: License,
    error: Schema.Union(InvalidArgument, NotFound, Unavailable)
  })
) {}

export const LicenseOperationsLive = LicenseOperations.toLayer(Effect.gen(function*() {
  const licenses = yield* Licenses
  return {
    CreateLicense: (license) => licenses.create(license),
    GetLicense: ({ id }) => licenses.get(id)
  }
}))
