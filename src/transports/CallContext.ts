import type * as Rpc from "@effect/rpc/Rpc"
import type * as RpcGroup from "@effect/rpc/RpcGroup"
import { Context, Effect, Scope } from "effect"
import { handlersOf } from "../operations/Operation.js"
import type { OperationHandlers } from "../contract/OperationHandlers.js"
import { UnitOfWorkReferences } from "../operations/DatabaseAccess.js"

/**
 * The context a port's calls run in: the operations table's handlers, the scope the port lives
 * in, and the references each unit of work reads; not the twenty-odd services that building the
 * process put beside them (the database client, the services, settings, health), which the
 * handlers have already taken what they need from.
 *
 * Why: Effect copies a context whole each time a service is added to it or merged into it, and a
 * REST call does so four times (the router's copy, the endpoint's merge with the context its group
 * was built in, two provided services): with 22–27 entries those copies were 17 KB of the 144 KB
 * a REST read allocated, against 3 KB in (d)'s (docs/benchmarks.md §5, "A smaller call context").
 */
export const callContext = <Rpcs extends Rpc.Any>(table: RpcGroup.RpcGroup<Rpcs>) =>
  Effect.map(Effect.context<OperationHandlers<Rpcs> | Scope.Scope | UnitOfWorkReferences>(), (context) => {
    const handlers = handlersOf(table)
    // test/transports/call-context.test.ts fails for a reference `src/` declares that is neither
    // among the unit of work's references nor named there as read only while the process starts.
    return Context.get(context, UnitOfWorkReferences).reduce(
      (kept, reference) => Context.add(kept, reference, Context.get(context, reference)),
      Context.make(handlers, Context.get(context, handlers)).pipe(Context.add(Scope.Scope, Context.get(context, Scope.Scope)))
    )
  })
