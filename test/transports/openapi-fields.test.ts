import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import { describe, expect, it } from "@effect/vitest"
import { Option, ParseResult, Schema, SchemaAST } from "effect"
import { described, optionalDescribed, record } from "../../src/domain/Described.js"
import { ProfileId } from "../../src/domain/Ids.js"
import { recordFields } from "../../src/domain/RecordFields.js"
import { Name } from "../../src/domain/Name.js"
import { LicenseHttpApi, OrgHttpApi, ProfileHttpApi, WorkflowHttpApi } from "../../src/contract/HttpApis.js"
import { openApiDocument } from "../../src/transports/rest/RestApp.js"

/**
 * Every field of every schema a port's document shows keeps, in /openapi.json, the description
 * and examples its domain schema declares, and every named schema stays a component: what is
 * expected is read from the schemas the HttpApi declares, so a field added needs no line here.
 */

type Json = { readonly [key: string]: unknown }
type Document = { readonly components: { readonly schemas: Record<string, Json> }; readonly paths: Record<string, Record<string, Json>> }

const isJson = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

/** The component a schema is written as: its own name, or a class's (on its declaration). */
const nameOf = (ast: SchemaAST.AST): string | undefined =>
  Option.getOrUndefined(SchemaAST.getJSONIdentifier(ast)) ??
    (ast._tag === "Transformation" && ast.to._tag === "Declaration" ? Option.getOrUndefined(SchemaAST.getIdentifierAnnotation(ast.to)) : undefined)

/** The keywords' own descriptions ("a string"), which JSON Schema leaves out. */
const builtIn = new Set([SchemaAST.stringKeyword, SchemaAST.numberKeyword, SchemaAST.booleanKeyword].map((keyword) => keyword.annotations))

/**
 * A field's own annotation, else its type's: unless the type is a component, which carries its
 * own, or a keyword as it comes.
 */
const annotation = <A>(get: (annotated: SchemaAST.Annotated) => Option.Option<A>, ps: SchemaAST.PropertySignature, type: SchemaAST.AST) =>
  Option.getOrUndefined(Option.orElse(get(ps), () => (nameOf(type) === undefined && !builtIn.has(type.annotations) ? get(type) : Option.none())))

/** Where the document's schema for `ast` differs from what the domain declares, each named by its path. */
const differences = (ast: SchemaAST.AST, json: Json, document: Document, path: string, seen: Set<string>): Array<string> => {
  const name = nameOf(ast)
  let schema = json
  if (name !== undefined) {
    if (json["$ref"] !== `#/components/schemas/${name}`) return [`${path}: not the component ${name}`]
    if (seen.has(name)) return []
    seen.add(name)
    schema = document.components.schemas[name]!
  }
  if (ast._tag === "TupleType" && ast.rest.length === 1 && isJson(schema["items"])) {
    return differences(ast.rest[0]!.type, schema["items"], document, `${path}[]`, seen)
  }
  if (ast._tag === "Union") {
    const members = Array.isArray(schema["anyOf"]) ? schema["anyOf"].filter(isJson) : [schema]
    return ast.types.flatMap((member) => {
      if (recordFields(member).length === 0 && nameOf(member) === undefined) return []
      const documented = members.find((each) => each["$ref"] !== undefined || each["type"] === "object")
      return documented === undefined ? [`${path}: no object member`] : differences(member, documented, document, path, seen)
    })
  }
  const properties = isJson(schema["properties"]) ? schema["properties"] : {}
  return recordFields(ast).flatMap(({ ps, type }) => {
    const field = `${path}.${String(ps.name)}`
    const property = properties[String(ps.name)]
    if (!isJson(property)) return [`${field}: not documented`]
    const description = annotation(SchemaAST.getDescriptionAnnotation, ps, type)
    const examples = annotation(SchemaAST.getExamplesAnnotation, ps, type)
    const expected = {
      description,
      examples: examples?.map((example) => ParseResult.encodeSync(Schema.make(SchemaAST.typeAST(type)))(example))
    }
    const found = { description: property["description"], examples: examples === undefined ? undefined : property["examples"] }
    const own = JSON.stringify(found) === JSON.stringify(expected) ? [] : [`${field}: ${JSON.stringify(found)}, declared ${JSON.stringify(expected)}`]
    // A described named schema is written as `allOf: [{$ref}]` beside its description; a nullable one as `anyOf`.
    const first = Array.isArray(property["allOf"]) ? property["allOf"][0] : undefined
    const inner = isJson(first) && first["$ref"] !== undefined ? first : property
    return [...own, ...differences(type, inner, document, field, seen)]
  })
}

/** Every request and reply schema of an API against its document. */
const documentDifferences = (api: HttpApi.HttpApi.Any): Array<string> => {
  const document = openApiDocument(api) as unknown as Document
  const found: Array<string> = []
  const seen = new Set<string>()
  HttpApi.reflect(api as HttpApi.HttpApi.AnyWithProps, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, payloads, successes }) => {
      const operation = document.paths[endpoint.path.replace(/:(\w+)/g, "{$1}")]![endpoint.method.toLowerCase()]!
      for (const [type, payload] of payloads) {
        const content = (operation["requestBody"] as { content: Record<string, { schema: Json }> }).content[type]!
        found.push(...differences(payload.ast, content.schema, document, `${endpoint.name} body`, seen))
      }
      for (const [status, success] of successes) {
        if (Option.isNone(success.ast)) continue
        const content = (operation["responses"] as Record<string, { content: Record<string, { schema: Json }> }>)[status]!.content
        found.push(...differences(success.ast.value, content["application/json"]!.schema, document, `${endpoint.name} ${status}`, seen))
      }
    }
  })
  return found
}

/** A record as the domain declares one, with an optional field: a transformation, for JSON Schema. */
class Pet extends Schema.Class<Pet>("Pet")({
  id: described(ProfileId, "the pet's id"),
  name: described(Name, "the pet's name", { examples: ["Rex"] }),
  nickname: optionalDescribed(Schema.String.pipe(Schema.maxLength(64)), "what the pet answers to", { examples: ["R"] })
}, record("Pet", "A pet")) {}

const PetApi = HttpApi.make("pets").add(
  HttpApiGroup.make("pets")
    .add(HttpApiEndpoint.get("getPet", "/pets/:id").addSuccess(Schema.Struct({ pet: Pet }).annotations({ identifier: "PetReply" })))
    .add(HttpApiEndpoint.post("createPet", "/pets").setPayload(Pet).addSuccess(Pet))
)

describe("every field's description and examples in /openapi.json", () => {
  it("each port's document shows every field of its schemas as the domain describes it, and each named schema as its component", () => {
    for (const [port, api] of Object.entries({ org: OrgHttpApi, profile: ProfileHttpApi, license: LicenseHttpApi, workflow: WorkflowHttpApi })) {
      expect({ port, differences: documentDifferences(api) }).toEqual({ port, differences: [] })
    }
  })

  it("a record with an optional described field keeps its component and every field's description and examples", () => {
    expect(documentDifferences(PetApi)).toEqual([])
    const pet = (openApiDocument(PetApi) as unknown as Document).components.schemas["Pet"]!
    expect(pet["properties"]).toMatchObject({
      name: { description: "the pet's name", examples: ["Rex"] },
      // The limit's words are read from the schema's maxLength.
      nickname: { description: "what the pet answers to: at most 64 characters", examples: ["R"] }
    })
  })
})
