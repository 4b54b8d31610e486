import * as Headers from "@effect/platform/Headers"
import type * as Rpc from "@effect/rpc/Rpc"
import type * as RpcGroup from "@effect/rpc/RpcGroup"
import { Effect, type Schema } from "effect"
import type { InvalidArgument } from "../domain/Errors.js"
import { validate } from "../domain/Validation.js"

/** One operation of a table, called from any style: input as the wire gave it -> its reply. */
export type Operation<Rpcs extends Rpc.Any, Tag extends Rpcs["_tag"]> = (
  input: unknown
) => Effect.Effect<
  Rpc.Success<Rpc.ExtractTag<Rpcs, Tag>>,
  Rpc.Error<Rpc.ExtractTag<Rpcs, Tag>> | InvalidArgument,
  Rpc.ToHandler<Rpc.ExtractTag<Rpcs, Tag>>
>

/**
 * Calls operation `tag` of a service's table the way @effect/rpc's server does, so that every
 * style runs the same handler: the input is decoded by the operation's payload schema (each broken
 * rule an InvalidArgument naming its field), then handed to the handler that the table's layer
 * (`Operations.toLayer`) put in the context. A style adapter only maps its wire form to the
 * payload's encoded shape and the result back.
 */
export const operation = <Rpcs extends Rpc.Any, const Tag extends Rpcs["_tag"]>(
  group: RpcGroup.RpcGroup<Rpcs>,
  tag: Tag
): Operation<Rpcs, Tag> => {
  const rpc = group.requests.get(tag) as Rpc.AnyWithProps | undefined
  if (rpc === undefined) throw new Error(`no operation ${tag} in this table`)
  const decode = validate(rpc.payloadSchema as Schema.Schema<unknown, unknown, never>)
  // Handlers of unary operations return an Effect; none of ours streams.
  const call = { clientId: -1, headers: Headers.empty }
  return (input) =>
    Effect.flatMap(decode(input), (payload) =>
      Effect.contextWithEffect((context) => {
        const entry = context.unsafeMap.get(rpc.key) as Rpc.Handler<Tag>
        return Effect.provide(entry.handler(payload, call) as Effect.Effect<never>, entry.context)
      })) as ReturnType<Operation<Rpcs, Tag>>
}
