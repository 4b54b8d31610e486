import { Context, Schema, SchemaAST } from "effect"

/**
 * An operation's payload in its table is the wire shape of its domain request
 * (`Schema.encodedSchema`), because the table is also `/rpc`'s declaration and that edge needs it:
 * @effect/rpc's server answers a payload that breaks a rule of its schema as a defect, not as a
 * failure, and its typed client checks the rules before sending, so a domain payload would hide
 * every rule's InvalidArgument from `/rpc` callers. That much is checked by @effect/rpc (a value of
 * the wrong type is refused as an InvalidArgument); every style, `/rpc` included, then decodes the
 * value with the domain schema kept here, once, before the handler (`requestOf` in Operation.ts),
 * so a handler is typed by its domain request (`DomainRequest`), never by the wire shape.
 */
export const wireShape = <A, I>(domain: Schema.Schema<A, I>): WireShape<A, I> =>
  Schema.encodedSchema(domain).annotations({ [DomainSchemaId]: domain })

/** Type only: the domain value a wire shape decodes to (no such property exists at run time). */
declare const DomainValue: unique symbol

/** The wire shape of a domain request whose value is `A` (`wireShape`). */
export interface WireShape<A, I> extends Schema.Schema<I> {
  readonly [DomainValue]?: A
}

/** Where a wire shape keeps the domain schema it was made from (the encoded side drops its descriptions). */
const DomainSchemaId = Symbol.for("onboarding-services/DomainSchema")

/** The domain schema of an operation's payload: what a style reads the fields' descriptions from, and what decodes its requests. */
export const domainSchemaOf = (payload: Schema.Schema.All): Schema.Schema.All =>
  (SchemaAST.getAnnotation<Schema.Schema.All>(payload.ast, DomainSchemaId).pipe((found) =>
    found._tag === "Some" ? found.value : payload
  ))

/** What an operation does, in a sentence: annotated on each Rpc of a table, shown by the styles that describe operations. */
export class OperationDescription extends Context.Tag("onboarding-services/OperationDescription")<OperationDescription, string>() {}
