import { Schema } from "effect"

/**
 * A field with its description, the one place each field is described: OpenAPI (so Swagger UI)
 * and GraphQL's schema read it from here. On the field, and on its type too: a record with a
 * transformed field (`optionalDescribed`'s null) is a transformation whose encoded side, which
 * JSON Schema and the GraphQL walk read, keeps the fields' types but not their own annotations.
 * The same type (an id) means other things in other fields, so each field annotates its own copy.
 */
export const described = <A, I, R>(schema: Schema.Schema<A, I, R>, description: string) =>
  Schema.propertySignature(schema.annotations({ description })).annotations({ description })

/**
 * An optional field with its description: absent, or `null` as JSON and GraphQL clients send and
 * as SQL stores it, both read as absent (so a column added to a table reads back as the field left
 * out).
 */
export const optionalDescribed = <A, I, R>(schema: Schema.Schema<A, I, R>, description: string) =>
  Schema.optionalWith(schema.annotations({ description }), { exact: true, nullable: true }).annotations({ description })
