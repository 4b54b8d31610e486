import type * as Rpc from "@effect/rpc/Rpc"
import { describe, expect, it } from "@effect/vitest"
import { Schema, SchemaAST as AST } from "effect"
import {
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLInputType,
  type GraphQLOutputType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType
} from "graphql/index.js"
import * as OpenApi from "@effect/platform/OpenApi"
import { Org } from "../../src/domain/Org.js"
import { LicenseOperations } from "../../src/contract/LicenseOperations.js"
import { OrgOperations } from "../../src/contract/OrgOperations.js"
import { ProfileOperations } from "../../src/contract/ProfileOperations.js"
import { WorkflowOperations } from "../../src/contract/WorkflowOperations.js"
import type { GraphqlApi } from "../../src/transports/graphql/GraphqlApi.js"
import { licenseGraphql, orgGraphql, profileGraphql, workflowGraphql } from "../../src/transports/graphql/PortSchemas.js"
import { LicenseHttpApi } from "../../src/contract/HttpApis.js"
import { elementOf, isAbsent, objectOf } from "../../src/transports/SchemaShape.js"

/**
 * Each port's GraphQL SDL says by hand how its types nest (the names are contract), and writes each
 * record's fields from the domain schema (SdlFields.ts); this walks the whole of it against the
 * operations' schemas: every argument, input field and result field names a member of the
 * operation's payload or success schema and the other way round, nested types included, and a
 * non-null GraphQL type stands exactly for a member that is always there.
 */

interface Port {
  readonly api: GraphqlApi<never>
  readonly table: { readonly requests: ReadonlyMap<string, Rpc.Any> }
  /** Each root field's operation; `renamed` gives an argument the GraphQL schema names otherwise. */
  readonly fields: Record<string, { readonly operation: string; readonly renamed?: Record<string, string> }>
}

const ports: Record<string, Port> = {
  org: {
    api: orgGraphql as GraphqlApi<never>,
    table: OrgOperations,
    fields: { org: { operation: "GetOrg" }, orgs: { operation: "ListOrgs" }, createOrg: { operation: "CreateOrg" } }
  },
  profile: {
    api: profileGraphql as GraphqlApi<never>,
    table: ProfileOperations,
    fields: {
      profile: { operation: "GetProfile" },
      profiles: { operation: "ListProfiles" },
      createProfile: { operation: "CreateProfile" }
    }
  },
  license: {
    api: licenseGraphql as GraphqlApi<never>,
    table: LicenseOperations,
    fields: {
      license: { operation: "GetLicense" },
      licenses: { operation: "ListLicenses" },
      createLicense: { operation: "CreateLicense" }
    }
  },
  workflow: {
    api: workflowGraphql as GraphqlApi<never>,
    table: WorkflowOperations,
    fields: {
      onboardingWorkflow: { operation: "GetOnboardingWorkflow", renamed: { id: "workflowId" } },
      onboardingWorkflows: { operation: "ListOnboardingWorkflows" },
      createOnboardingWorkflow: { operation: "CreateOnboardingWorkflow" }
    }
  }
}

type GraphqlType = GraphQLOutputType | GraphQLInputType
type Named = GraphQLField<unknown, unknown> | GraphQLInputField | GraphQLArgument

/** A schema member that may be left out: optional, or a union with undefined or null. */
const mayBeAbsent = (member: AST.PropertySignature) =>
  member.isOptional || (member.type._tag === "Union" && member.type.types.some(isAbsent))

const unwrapped = (type: GraphqlType): GraphqlType => (isNonNullType(type) ? type.ofType : type)

/** Every difference between GraphQL fields (or arguments) and a schema's members, as `path: …` lines. */
const differences = (
  fields: ReadonlyArray<Named>,
  ast: AST.AST,
  path: string,
  renamed: Record<string, string> = {}
): Array<string> => {
  const object = objectOf(AST.encodedAST(ast))
  if (object === undefined) return [`${path}: the schema is not an object`]
  const members = new Map(object.propertySignatures.map((member) => [String(member.name), member]))
  const byName = new Map(fields.map((field) => [renamed[field.name] ?? field.name, field]))
  const found = [
    ...[...byName.keys()].filter((name) => !members.has(name)).map((name) => `${path}.${name}: only in GraphQL`),
    ...[...members.keys()].filter((name) => !byName.has(name)).map((name) => `${path}.${name}: only in the schema`)
  ]
  for (const [name, field] of byName) {
    const member = members.get(name)
    if (member === undefined) continue
    if (isNonNullType(field.type) === mayBeAbsent(member)) {
      found.push(`${path}.${name}: ${isNonNullType(field.type) ? "non-null in GraphQL, optional" : "nullable in GraphQL, always there"} in the schema`)
    }
    found.push(...nested(unwrapped(field.type), member.type, `${path}.${name}`))
  }
  return found
}

/** The differences inside an object, input object or list of them. */
const nested = (type: GraphqlType, ast: AST.AST, path: string): Array<string> => {
  if (isListType(type)) {
    const element = elementOf(AST.encodedAST(ast))
    return element === undefined ? [`${path}: not a list in the schema`] : nested(unwrapped(type.ofType), element, `${path}[]`)
  }
  if (isObjectType(type) || isInputObjectType(type)) return differences(Object.values(type.getFields()), ast, path)
  return []
}

/** A Get/Create result is the record under one field (`{org: ...}`) unless the schema holds that field. */
const resultDifferences = (type: GraphqlType, success: AST.AST, path: string): Array<string> => {
  const inner = unwrapped(type)
  if (!isObjectType(inner)) return [`${path}: not an object type`]
  const fields = Object.values(inner.getFields())
  const members = objectOf(AST.encodedAST(success))?.propertySignatures.map((member) => String(member.name)) ?? []
  const only = fields.length === 1 ? fields[0]! : undefined
  return only !== undefined && !members.includes(only.name)
    ? nested(unwrapped(only.type), success, `${path}.${only.name}`)
    : nested(inner, success, path)
}

describe("GraphQL schemas name the same fields as the operations' schemas, with the same optionality", () => {
  for (const [port, { api, fields, table }] of Object.entries(ports)) {
    const roots = { ...api.schema.getQueryType()!.getFields(), ...api.schema.getMutationType()!.getFields() }
    it(`${port}: every root field is an operation of the table`, () => {
      expect(Object.keys(roots).sort()).toEqual(Object.keys(fields).sort())
    })
    for (const [name, { operation, renamed }] of Object.entries(fields)) {
      it(`${port}: ${name} (${operation})`, () => {
        const root = roots[name]!
        const rpc = table.requests.get(operation) as unknown as Rpc.AnyWithProps
        const [input] = root.args
        // A mutation takes its payload as one `input` object; a query as its arguments.
        const request = root.args.length === 1 && input!.name === "input"
          ? differences(Object.values((unwrapped(input!.type) as { getFields: () => object }).getFields()) as Array<Named>, rpc.payloadSchema.ast, "input")
          : differences(root.args, rpc.payloadSchema.ast, "arguments", renamed)
        expect([...request, ...resultDifferences(root.type, rpc.successSchema.ast, "result")]).toEqual([])
      })
    }
  }

  it("the walk notices a field on one side only, and optionality that differs", () => {
    const org = orgGraphql.schema.getType("Org")
    if (!isObjectType(org)) throw new Error("no type Org")
    const { name: _, ...withoutName } = Org.fields
    expect(differences(Object.values(org.getFields()), Schema.Struct(withoutName).ast, "org")).toEqual(["org.name: only in GraphQL"])
    const optionalName = Schema.Struct({ ...withoutName, name: Schema.optional(Schema.String) })
    expect(differences(Object.values(org.getFields()), optionalName.ast, "org")).toEqual([
      "org.name: non-null in GraphQL, optional in the schema"
    ])
  })
})

describe("GraphQL schemas are described from the declarations", () => {
  for (const [port, { api }] of Object.entries(ports)) {
    it(`${port}: every type, field and argument has a description`, () => {
      const missing: Array<string> = []
      for (const type of Object.values(api.schema.getTypeMap())) {
        if (type.name.startsWith("__") || !(isObjectType(type) || isInputObjectType(type))) continue
        if (type.name !== "Query" && type.name !== "Mutation" && !type.description) missing.push(`type ${type.name}`)
        for (const field of Object.values(type.getFields()) as Array<Named & { readonly args?: ReadonlyArray<GraphQLArgument> }>) {
          if (!field.description) missing.push(`${type.name}.${field.name}`)
          for (const argument of field.args ?? []) if (!argument.description) missing.push(`${type.name}.${field.name}(${argument.name})`)
        }
      }
      expect(missing).toEqual([])
    })
  }

  it("a record's fields read as OpenAPI writes them, both from the domain schema's descriptions", () => {
    const document = OpenApi.fromApi(LicenseHttpApi) as unknown as {
      readonly components: { readonly schemas: Record<string, { readonly properties: Record<string, { readonly description?: string }> }> }
    }
    const license = licenseGraphql.schema.getType("License")
    if (!isObjectType(license)) throw new Error("no type License")
    for (const field of Object.values(license.getFields())) {
      expect({ field: field.name, description: field.description }).toEqual({
        field: field.name,
        description: document.components.schemas["License"]!.properties[field.name]!.description
      })
    }
    expect(license.getFields()["end"]!.description).toMatch(/after start/)
  })
})
