import type * as Rpc from "@effect/rpc/Rpc"
import type { Effect } from "effect"
import type { InvalidArgument } from "../domain/Errors.js"
import type { WireShape } from "./WireShape.js"

/** The domain request of an operation: the value its wire shape decodes to (WireShape.ts). */
export type DomainRequest<R> = R extends Rpc.Rpc<infer _Tag, infer Payload, infer _Success, infer _Error, infer _Middleware>
  ? Payload extends WireShape<infer A, infer _I> ? A : never
  : never

/**
 * A table's handlers, as its layer is given them: each takes its domain request, decoded once
 * before it runs (`requestOf` in Operation.ts). Apart from `Operation.ts` because the operations
 * tables name it and the client package carries the tables, not how the server runs them.
 */
export type OperationHandlers<Rpcs extends Rpc.Any> = {
  readonly [Tag in Rpcs["_tag"]]: (
    request: DomainRequest<Rpc.ExtractTag<Rpcs, Tag>>
  ) => Effect.Effect<Rpc.Success<Rpc.ExtractTag<Rpcs, Tag>>, Rpc.Error<Rpc.ExtractTag<Rpcs, Tag>> | InvalidArgument>
}
