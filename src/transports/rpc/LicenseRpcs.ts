import * as Rpc from "@effect/rpc/Rpc"
import * as RpcGroup from "@effect/rpc/RpcGroup"
import { Schema } from "effect"
import { AlreadyExists, InvalidArgument, NotFound, Unavailable } from "../../domain/Errors.js"
import { License } from "../../domain/License.js"
import { checkedByServer } from "./CheckedPayload.js"

/** The license service over `@effect/rpc` at `/rpc` on the license port; times are RFC 3339 text. */
export class LicenseRpcs extends RpcGroup.make(
  Rpc.make("CreateLicense", {
    payload: checkedByServer({ id: Schema.String, userId: Schema.String, start: Schema.String, end: Schema.String }),
    success: License,
    error: Schema.Union(InvalidArgument, AlreadyExists, Unavailable)
  }),
  Rpc.make("GetLicense", {
    payload: checkedByServer({ id: Schema.String }),
    success: License,
    error: Schema.Union(InvalidArgument, NotFound, Unavailable)
  })
) {}
