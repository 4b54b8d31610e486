import { Option, Predicate, type Schema, SchemaAST as AST } from "effect"
import { isAbsent, objectOf } from "../SchemaShape.js"

/**
 * A GraphQL object's or input's fields, written from the domain schema they carry: its field
 * names in its order, each non-null unless the schema lets it be absent, `ID` for a field named
 * `id` (contract §6), `Int` for an integer, `Float`, `Boolean`, and `String` for text (ids,
 * names, timestamps, statuses). So a field added to a domain class is in the GraphQL type with
 * nothing written here; a type this cannot name stops the process at start with the field's name.
 */
export const sdlFields = (schema: Schema.Schema.Any): string => {
  const object = objectOf(schema.ast)
  if (object === undefined) throw new Error(`${String(schema.ast)}: not an object, so not a GraphQL type's fields`)
  return object.propertySignatures.map((member) => {
    const name = String(member.name)
    const present = member.type._tag === "Union" ? member.type.types.filter((type) => !isAbsent(type)) : [member.type]
    const absent = member.isOptional || present.length < (member.type._tag === "Union" ? member.type.types.length : 1)
    const scalars = new Set(present.map(scalarOf))
    const scalar = name === "id" ? "ID" : scalars.size === 1 ? [...scalars][0] : undefined
    if (scalar === undefined) throw new Error(`${name}: no GraphQL scalar for ${String(member.type)}`)
    return `${name}: ${scalar}${absent ? "" : "!"}`
  }).join("  ")
}

const isInteger = (ast: AST.AST) =>
  Option.exists(AST.getJSONSchemaAnnotation(ast), (json) => Predicate.hasProperty(json, "type") && json.type === "integer")

/** The scalar a value is on the wire: a transformation by what it is encoded from. */
const scalarOf = (ast: AST.AST): string | undefined => {
  switch (ast._tag) {
    case "StringKeyword":
    case "TemplateLiteral":
      return "String"
    case "NumberKeyword":
      return "Float"
    case "BooleanKeyword":
      return "Boolean"
    case "Literal":
      return typeof ast.literal === "string" ? "String" : typeof ast.literal === "boolean" ? "Boolean" : undefined
    case "Refinement":
      return isInteger(ast) ? "Int" : scalarOf(ast.from)
    case "Transformation":
      return scalarOf(ast.from)
    case "Union": {
      const scalars = new Set(ast.types.map(scalarOf))
      return scalars.size === 1 ? [...scalars][0] : undefined
    }
    default:
      return undefined
  }
}
