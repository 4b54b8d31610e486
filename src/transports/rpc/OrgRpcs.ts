import * as Rpc from "@effect/rpc/Rpc"
import * as RpcGroup from "@effect/rpc/RpcGroup"
import { Schema } from "effect"
import { AlreadyExists, InvalidArgument, NotFound, Unavailable } from "../../domain/Errors.js"
import { Org } from "../../domain/Org.js"
import { checkedByServer } from "./CheckedPayload.js"

/** The org service over `@effect/rpc` at `/rpc` on the org port. Payloads are validated by the server. */
export class OrgRpcs extends RpcGroup.make(
  Rpc.make("CreateOrg", {
    payload: checkedByServer({ id: Schema.String, name: Schema.String }),
    success: Org,
    error: Schema.Union(InvalidArgument, AlreadyExists, Unavailable)
  }),
  Rpc.make("GetOrg", {
    payload: checkedByServer({ id: Schema.String }),
    success: Org,
    error: Schema.Union(InvalidArgument, NotFound, Unavailable)
  })
) {}
