import { Schema } from "effect"

/**
 * A field with its description, the one place each field is described: OpenAPI (so Swagger UI)
 * and GraphQL's schema read it from here. On the field, not its type: a type's annotations do not
 * reach JSON Schema through a refinement, and the same type (an id) means other things in other
 * fields.
 */
export const described = <S extends Schema.Schema.All>(schema: S, description: string) =>
  Schema.propertySignature(schema).annotations({ description })
