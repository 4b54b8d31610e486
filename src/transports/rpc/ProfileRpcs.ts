import * as Rpc from "@effect/rpc/Rpc"
import * as RpcGroup from "@effect/rpc/RpcGroup"
import { Schema } from "effect"
import { AlreadyExists, InvalidArgument, NotFound, Unavailable } from "../../domain/Errors.js"
import { Profile } from "../../domain/Profile.js"
import { checkedByServer } from "./CheckedPayload.js"

/** The profile service over `@effect/rpc` at `/rpc` on the profile port. */
export class ProfileRpcs extends RpcGroup.make(
  Rpc.make("CreateProfile", {
    payload: checkedByServer({ id: Schema.String, fullName: Schema.String, orgId: Schema.String }),
    success: Profile,
    error: Schema.Union(InvalidArgument, AlreadyExists, Unavailable)
  }),
  Rpc.make("GetProfile", {
    payload: checkedByServer({ id: Schema.String }),
    success: Profile,
    error: Schema.Union(InvalidArgument, NotFound, Unavailable)
  })
) {}
