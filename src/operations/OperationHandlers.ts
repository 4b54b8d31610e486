import type * as Rpc from "@effect/rpc/Rpc"
import type { Effect } from "effect"
import type { InvalidArgument } from "../domain/Errors.js"

/**
 * A table's handlers, as its layer is given them: each takes its payload as the wire gave it.
 * Apart from `Operation.ts` because the operations tables name it and the client package
 * carries the tables, not how the server runs them.
 */
export type OperationHandlers<Rpcs extends Rpc.Any> = {
  readonly [Tag in Rpcs["_tag"]]: (
    payload: Rpc.Payload<Rpc.ExtractTag<Rpcs, Tag>>
  ) => Effect.Effect<Rpc.Success<Rpc.ExtractTag<Rpcs, Tag>>, Rpc.Error<Rpc.ExtractTag<Rpcs, Tag>> | InvalidArgument>
}
