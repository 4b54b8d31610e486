import { Schema } from "effect"

/**
 * A payload shape the server checks itself. @effect/rpc decodes a payload with the Rpc's schema
 * before the handler runs, and answers a payload of the wrong shape (a number for a name, a field
 * left out, `null`) with a defect carrying the schema's text. That is the caller's mistake, so,
 * as in every other style, it must be an `InvalidArgument` naming the field (design §3.3, §3.7).
 *
 * This schema gives clients the payload's TypeScript type and lets any value through on the
 * wire; the handlers treat what arrives as unknown and validate it with the domain's schemas.
 */
export const checkedByServer = <Fields extends Schema.Struct.Fields>(fields: Fields) => {
  const shape = Schema.Struct(fields)
  return Schema.declare((_input: unknown): _input is Schema.Schema.Type<typeof shape> => true, {
    identifier: "CheckedByServer",
    description: `${String(shape.ast)}, validated by the server`
  })
}
