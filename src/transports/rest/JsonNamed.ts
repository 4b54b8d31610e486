import { Predicate, type SchemaAST as AST } from "effect"
import { elementOf, objectOf } from "../SchemaShape.js"
import { snakeCase } from "../../domain/FieldNames.js"

/** Set as an own property whatever the key: `__proto__` in a body must stay a field, to be refused as one. */
const put = (target: Record<string, unknown>, key: string, value: unknown) =>
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })

const named = (ast: AST.AST, value: unknown): unknown => {
  if (Array.isArray(value)) {
    const element = elementOf(ast)
    return element === undefined ? value : value.map((item) => named(element, item))
  }
  const object = objectOf(ast)
  if (object === undefined || !Predicate.isRecord(value)) return value
  const types = new Map(object.propertySignatures.map((field) => [String(field.name), field.type]))
  const byProtoName = new Map([...types.keys()].map((json) => [snakeCase(json), json]))
  const result: Record<string, unknown> = {}
  for (const [key, field] of Object.entries(value)) {
    const json = types.has(key) ? key : byProtoName.get(key)
    // Unknown: kept as the caller wrote it, for the decode to refuse by that name.
    if (json === undefined) put(result, key, field)
    // Both spellings given: the JSON name wins, as in protobuf's own JSON readers.
    else if (json === key || !Object.hasOwn(value, json)) put(result, json, named(types.get(json)!, field))
  }
  return result
}

/**
 * A JSON request as `payload` (an operation's wire shape) names its fields: each proto name it
 * has at that level read as the field's JSON name, nested objects included. Walked along the
 * schema, so a key it does not have stays as written and is not descended into, however deep the
 * value nests.
 */
export const jsonNamed = (payload: { readonly ast: AST.AST }) => (value: unknown): unknown => named(payload.ast, value)
