import { snakeCase } from "../domain/FieldNames.js"

/**
 * An OpenAPI document whose request bodies name each field under both names a request may use
 * (contract §3.2): `full_name` beside `fullName`, so that `additionalProperties: false` is true of
 * what the server accepts. A required field is required under either name. Written from the
 * document the schemas gave, so a field added to a domain schema is documented under both names
 * without a line here.
 */

type JsonSchema = { readonly [key: string]: unknown }

const isSchema = (value: unknown): value is JsonSchema => typeof value === "object" && value !== null && !Array.isArray(value)

/** A schema's `required`: the names it lists, none when it has no list. */
const requiredOf = (schema: JsonSchema): ReadonlyArray<string> => {
  const required = schema["required"]
  return Array.isArray(required) ? required.filter((name): name is string => typeof name === "string") : []
}

const withProtoNames = (schema: JsonSchema): JsonSchema => {
  const result: Record<string, unknown> = { ...schema }
  if (Array.isArray(schema["anyOf"])) result["anyOf"] = schema["anyOf"].map((member) => (isSchema(member) ? withProtoNames(member) : member))
  if (isSchema(schema["items"])) result["items"] = withProtoNames(schema["items"])
  const properties = schema["properties"]
  if (!isSchema(properties)) return result
  const named = Object.entries(properties).map(([json, property]) => [json, isSchema(property) ? withProtoNames(property) : property] as const)
  const aliases = new Map(
    named.map(([json]) => [json, snakeCase(json)] as const).filter(([json, proto]) => proto !== json && !Object.hasOwn(properties, proto))
  )
  result["properties"] = Object.fromEntries(named.flatMap(([json, property]) => {
    const proto = aliases.get(json)
    if (proto === undefined) return [[json, property]]
    const description = `${json}, by its proto name (${json} is read when both are given)`
    return [[json, property], [proto, { ...(property as JsonSchema), description }]]
  }))
  const required = requiredOf(schema)
  const either = required.filter((json) => aliases.has(json))
  if (either.length > 0) {
    result["required"] = required.filter((json) => !aliases.has(json))
    result["allOf"] = [
      ...(Array.isArray(schema["allOf"]) ? schema["allOf"] : []),
      ...either.map((json) => ({ anyOf: [{ required: [json] }, { required: [aliases.get(json)!] }] }))
    ]
  }
  return result
}

/**
 * A body's example in JSON names only, from its fields' own examples (the domain's): Swagger UI
 * prefills "Try it out" from a media type's `example` before it would write one from the schema,
 * which would now hold every field twice. None when a required field has no example.
 */
const exampleOf = (schema: JsonSchema, schemas: Record<string, JsonSchema>): unknown => {
  const ref = typeof schema["$ref"] === "string" ? schemas[schema["$ref"].replace("#/components/schemas/", "")] : undefined
  if (ref !== undefined) return exampleOf(ref, schemas)
  if (Array.isArray(schema["examples"]) && schema["examples"].length > 0) return schema["examples"][0]
  const properties = schema["properties"]
  if (!isSchema(properties)) return undefined
  const required = new Set(requiredOf(schema))
  const example: Record<string, unknown> = {}
  for (const [name, property] of Object.entries(properties)) {
    const value = isSchema(property) ? exampleOf(property, schemas) : undefined
    if (value !== undefined) example[name] = value
    else if (required.has(name)) return undefined
  }
  return example
}

type Spec = {
  readonly paths: {
    readonly [path: string]: {
      readonly [method: string]: { readonly requestBody?: { readonly content: Record<string, { schema: JsonSchema; example?: unknown }> } }
    }
  }
  readonly components: { readonly schemas: Record<string, JsonSchema> }
}

/**
 * `OpenApi.Transform` for an API: each request body's schema (the component it refers to, or the
 * schema itself) given its fields' proto names. Only bodies: a reply is written in JSON names.
 */
export const protoNamesDocumented = (document: Record<string, unknown>): Record<string, unknown> => {
  const spec = document as unknown as Spec
  const schemas = { ...spec.components.schemas }
  const paths = Object.fromEntries(Object.entries(spec.paths).map(([path, item]) => [
    path,
    Object.fromEntries(Object.entries(item).map(([method, operation]) => {
      const body = operation.requestBody
      if (body === undefined) return [method, operation]
      const content = Object.fromEntries(Object.entries(body.content).map(([type, media]) => {
        const schema = media.schema
        const example = media.example ?? exampleOf(schema, spec.components.schemas)
        const shown = example === undefined ? {} : { example }
        const ref = typeof schema["$ref"] === "string" ? schema["$ref"].replace("#/components/schemas/", "") : undefined
        if (ref === undefined) return [type, { ...media, schema: withProtoNames(schema), ...shown }]
        schemas[ref] = withProtoNames(spec.components.schemas[ref]!)
        return [type, { ...media, schema, ...shown }]
      }))
      return [method, { ...operation, requestBody: { ...body, content } }]
    }))
  ]))
  return { ...document, paths, components: { ...spec.components, schemas } }
}
