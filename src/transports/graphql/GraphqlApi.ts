import type { Effect } from "effect"
import type { GraphQLSchema } from "./GraphqlJs.js"
import type { DomainError } from "../../domain/Errors.js"

/** The argument of a Mutation field that holds the operation's whole payload (`createOrg(input: …)`, contract §6). */
export const payloadArgument = "input"

/** A root field's arguments, already checked and coerced by graphql-js to the types the SDL declares. */
export type GraphqlArgs = { readonly [argument: string]: unknown }

/** One Query or Mutation field: its arguments -> the domain call -> the GraphQL reply. */
export type GraphqlOperation<R> = (args: GraphqlArgs) => Effect.Effect<unknown, DomainError, R>

/**
 * The GraphQL API of one port (contract §6): its schema, and an operation for each root field.
 * Query and Mutation field names never collide, so one table serves as graphql-js's root value.
 */
export interface GraphqlApi<R> {
  readonly schema: GraphQLSchema
  readonly operations: { readonly [rootField: string]: GraphqlOperation<R> }
  /**
   * The field of a root field's reply that holds its operation's value (`org` of `{ org: … }`);
   * a root field not named here replies with the value itself. The reply is made once the
   * operation's fiber has ended, not as one more step of it (an `Effect.map` costs a step, its
   * continuation and its closure a call).
   */
  readonly replies?: { readonly [rootField: string]: string }
}
