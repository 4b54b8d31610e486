import { Schema } from "effect"

/**
 * An operation's payload is the wire shape of its domain request (`Schema.encodedSchema`): every
 * style and @effect/rpc's server check that much, so a value of the wrong type is refused as an
 * InvalidArgument before any handler runs; the handler then holds it to the domain's rules with
 * `validated`. (A payload schema claiming the domain type would make @effect/rpc's typed client
 * check the rules before sending, and its server answer a broken rule as a defect, not a failure.)
 */
export const wireShape = <A, I>(domain: Schema.Schema<A, I>): Schema.Schema<I> => Schema.encodedSchema(domain)
