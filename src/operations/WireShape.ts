import { Context, Schema, SchemaAST } from "effect"

/**
 * An operation's payload is the wire shape of its domain request (`Schema.encodedSchema`): every
 * style and @effect/rpc's server check that much, so a value of the wrong type is refused as an
 * InvalidArgument before any handler runs; the handler then holds it to the domain's rules with
 * `validated`. (A payload schema claiming the domain type would make @effect/rpc's typed client
 * check the rules before sending, and its server answer a broken rule as a defect, not a failure.)
 */
export const wireShape = <A, I>(domain: Schema.Schema<A, I>): Schema.Schema<I> =>
  Schema.encodedSchema(domain).annotations({ [DomainSchemaId]: domain })

/** Where a wire shape keeps the domain schema it was made from (the encoded side drops its descriptions). */
const DomainSchemaId = Symbol.for("onboarding-services/DomainSchema")

/** The domain schema of an operation's payload: what a style reads the fields' descriptions from. */
export const domainSchemaOf = (payload: Schema.Schema.All): Schema.Schema.All =>
  (SchemaAST.getAnnotation<Schema.Schema.All>(payload.ast, DomainSchemaId).pipe((found) =>
    found._tag === "Some" ? found.value : payload
  ))

/** What an operation does, in a sentence: annotated on each Rpc of a table, shown by the styles that describe operations. */
export class OperationDescription extends Context.Tag("onboarding-services/OperationDescription")<OperationDescription, string>() {}
