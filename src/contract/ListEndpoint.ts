import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as OpenApi from "@effect/platform/OpenApi"
import { JSONSchema, Option, Schema, SchemaAST } from "effect"
import { type SnakeCase, snakeCase } from "../domain/FieldNames.js"

/**
 * A list's endpoint in the REST face (HttpApis.ts): its query parameters, each taken as the caller
 * wrote it and documented as the domain's list request declares it.
 */

/**
 * A query parameter as the caller wrote it: the list operation checks it, with the other
 * styles' rules and messages (so it is never refused here in the platform's own form, not even
 * when repeated). Documented (`documented`) as the value it should be.
 */
const queryParameter = (documented: object) =>
  Schema.optional(Schema.Union(Schema.String, Schema.Array(Schema.String)).annotations({ jsonSchema: documented }))

/**
 * How a list's query parameter is documented: as its field in the domain's list request
 * (ListOrgsRequest, ...) describes it, with the type of the value it holds when given (`pageSize`
 * an integer and its bounds, a filter a UUID): `null` and `""` mean "not given" there, which a
 * query string says by leaving the parameter out.
 */
const documentedField = ({ ast }: Schema.Struct.Field): object => {
  // A field is a property signature (optional, described) or a schema (required).
  const field = ast._tag === "PropertySignatureDeclaration"
    ? ast
    : ast._tag === "PropertySignatureTransformation"
    ? ast.from
    : { type: ast, annotations: ast.annotations }
  const notGiven = (member: SchemaAST.AST) =>
    member._tag === "UndefinedKeyword" || (member._tag === "Literal" && (member.literal === null || member.literal === ""))
  const given = field.type._tag === "Union" ? field.type.types.filter((member) => !notGiven(member)) : [field.type]
  const type = given.length === 1 ? given[0]! : SchemaAST.Union.make(given)
  const description = Option.getOrUndefined(SchemaAST.getDescriptionAnnotation(field))
  // A parameter's schema stands alone: the named schemas it refers to (`Int`) are written in it.
  const definitions: Record<string, JSONSchema.JsonSchema7> = {}
  const inlined = (json: object): object => {
    const { $ref, ...rest } = json as { readonly $ref?: string }
    if ($ref === undefined) return json
    const { title: _title, ...named } = inlined(definitions[$ref.replace("#/$defs/", "")]!) as { readonly title?: string }
    return { ...named, ...rest }
  }
  return { ...inlined(JSONSchema.fromAST(type, { definitions, target: "openApi3.1" })), ...(description === undefined ? {} : { description }) }
}

type QueryParameter = ReturnType<typeof queryParameter>

/** A list's query parameters: each field of its request under its JSON and its proto name. */
export type ListParameters<Names extends string> = {
  readonly schema: Schema.Struct<{ readonly [K in Names | SnakeCase<Names>]: QueryParameter }>
  /** The proto names that are not also JSON names: accepted, and left out of the document. */
  readonly aliases: ReadonlySet<string>
}

/**
 * A list's query parameters (contract §7), each the field of the list's domain request of the
 * same name, under its JSON name and its proto name (`pageSize`, `page_size`). The server accepts
 * both (`queryRequest` in RequestBody.ts); the document names each once, by its JSON name: the proto names are
 * taken out of it by the list endpoint (`listEndpoint`), so Swagger UI shows one input each.
 */
export const listParameters = <Fields extends Schema.Struct.Fields>(
  request: { readonly fields: Fields }
): ListParameters<keyof Fields & string> => {
  const fields = Object.entries<Schema.Struct.Field>(request.fields)
  const schema = Schema.Struct(
    Object.fromEntries(fields.flatMap(([json, field]) => {
      const parameter = queryParameter(documentedField(field))
      return json === snakeCase(json) ? [[json, parameter]] : [[json, parameter], [snakeCase(json), parameter]]
    }))
  )
  const aliases = new Set<string>(fields.map(([json]) => snakeCase(json)).filter((name) => !(name in request.fields)))
  return { schema: schema as unknown as ListParameters<keyof Fields & string>["schema"], aliases }
}

/** `GET <path>`: a page of the list, `{<items>: [...], nextPageToken}` ("" on the last page). */
export const listEndpoint = <const Name extends string, const Path extends `/${string}`, R extends Schema.Schema.Any, Names extends string>(
  name: Name,
  path: Path,
  reply: R,
  parameters: ListParameters<Names>
) =>
  HttpApiEndpoint.get(name, path)
    // Every parameter's encoded side is text (`queryParameter`); TypeScript cannot see it through the generic names.
    .setUrlParams<ListParameters<Names>["schema"]>(
      parameters.schema as ListParameters<Names>["schema"] & HttpApiEndpoint.HttpApiEndpoint.ValidateUrlParams<ListParameters<Names>["schema"]>
    )
    .addSuccess(reply)
    .annotate(OpenApi.Summary, `${name[0]!.toUpperCase()}${name.slice(1)}`)
    .annotate(OpenApi.Description, "Newest first, a page at a time (AIP-158). A page token is bound to the filter it was made for.")
    .annotate(OpenApi.Transform, (operation) => ({
      ...operation,
      parameters: (operation["parameters"] as ReadonlyArray<{ readonly name: string }>).filter((parameter) => !parameters.aliases.has(parameter.name))
    }))
