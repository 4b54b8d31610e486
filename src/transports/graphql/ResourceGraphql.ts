import type * as Rpc from "@effect/rpc/Rpc"
import type * as RpcGroup from "@effect/rpc/RpcGroup"
import { operation, rpcOf } from "../../operations/Operation.js"
import type { OperationHandlers } from "../../contract/OperationHandlers.js"
import { type GraphqlApi, payloadArgument } from "./GraphqlApi.js"
import { describedSchema } from "./Descriptions.js"
import { buildSchema } from "./GraphqlJs.js"

/**
 * The GraphQL face of a resource service (contract §6): `Query.<name>(id: ID!)` answers
 * `{<name>: ...}` from the table's Get operation, `Mutation.create<Name>(input: ...)` answers
 * `{<name>: ...}` from its Create operation, and `Query.<list>(pageSize, pageToken, <filter>)`
 * answers a page from its List operation (contract §7), the arguments being the request's
 * fields. Replies are domain values: the GraphQL field names are the domain's.
 */
export const resourceGraphql = <Rpcs extends Rpc.Any>(resource: {
  readonly sdl: string
  readonly name: string
  readonly table: RpcGroup.RpcGroup<Rpcs>
  readonly get: Rpcs["_tag"]
  readonly create: Rpcs["_tag"]
  readonly list: { readonly field: string; readonly operation: Rpcs["_tag"] }
}): GraphqlApi<OperationHandlers<Rpcs>> => {
  const get = operation(resource.table, resource.get)
  const create = operation(resource.table, resource.create)
  const list = operation(resource.table, resource.list.operation)
  const createField = `create${resource.name[0]!.toUpperCase()}${resource.name.slice(1)}`
  return {
    schema: describedSchema(buildSchema(resource.sdl), {
      [resource.name]: { rpc: rpcOf(resource.table, resource.get) },
      [createField]: { rpc: rpcOf(resource.table, resource.create) },
      [resource.list.field]: { rpc: rpcOf(resource.table, resource.list.operation) }
    }),
    operations: {
      [resource.name]: get,
      [createField]: (args) => create(args[payloadArgument]),
      [resource.list.field]: list
    },
    replies: { [resource.name]: resource.name, [createField]: resource.name }
  }
}
