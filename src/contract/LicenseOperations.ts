import * as Rpc from "@effect/rpc/Rpc"
import * as RpcGroup from "@effect/rpc/RpcGroup"
import { Schema } from "effect"
import { described } from "../domain/Described.js"
import { AlreadyExists, InvalidArgument, NotFound, Unavailable } from "../domain/Errors.js"
import { LicenseId } from "../domain/Ids.js"
import { License, ListLicensesRequest, ListLicensesResponse } from "../domain/License.js"
import type { OperationHandlers } from "./OperationHandlers.js"
import { OperationDescription, wireShape } from "./WireShape.js"

/** The payload that names one record. */
export const LicenseRef = Schema.Struct({ id: described(LicenseId, "the license's id (a UUID)") })

/** The license service's operations, declared once for every style (see OrgOperations). */
export class LicenseOperations extends RpcGroup.make(
  Rpc.make("CreateLicense", {
    payload: wireShape(License),
    success: License,
    error: Schema.Union(InvalidArgument, AlreadyExists, Unavailable)
  }).annotate(OperationDescription, "Creates a license for a profile under the caller's id; the same request again answers the same license"),
  Rpc.make("GetLicense", {
    payload: wireShape(LicenseRef),
    success: License,
    error: Schema.Union(InvalidArgument, NotFound, Unavailable)
  }).annotate(OperationDescription, "Reads one license by its id"),
  Rpc.make("ListLicenses", {
    payload: wireShape(ListLicensesRequest),
    success: ListLicensesResponse,
    error: Schema.Union(InvalidArgument, Unavailable)
  }).annotate(OperationDescription, "Lists licenses, newest first, a page at a time, optionally only those of one user")
) {}

/** What a style adapter needs in its context to run these operations. */
export type LicenseHandlers = OperationHandlers<RpcGroup.Rpcs<typeof LicenseOperations>>
