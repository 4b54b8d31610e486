import type * as Rpc from "@effect/rpc/Rpc"
import { Context, Option, SchemaAST as AST } from "effect"
import { domainSchemaOf, OperationDescription } from "../../contract/WireShape.js"
import { elementOf, objectOf, presentMember, soleOf } from "../SchemaShape.js"
import {
  type GraphQLSchema,
  type GraphQLType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType
} from "./GraphqlJs.js"

/**
 * A port's GraphQL schema, described from the declarations: each root field by its operation's
 * description, each argument, input field and result field by the domain schema's description of
 * that field, each type by its schema's. The SDL holds names only (they are contract), so nothing
 * is described twice and GraphiQL shows what OpenAPI shows. A field the schema does not name is
 * left undescribed; `test/transports/graphql-mapping.test.ts` fails on one.
 */

/** Each root field (Query or Mutation) and its operation; `renamed` gives an argument's name in the payload. */
export type RootOperations = Record<string, { readonly rpc: Rpc.Any; readonly renamed?: Record<string, string> }>

interface Describable {
  description?: string | null | undefined
}

const say = (target: Describable, text: string | undefined) => {
  if (text !== undefined) target.description = text
}

/** A schema's description: its own, a class's on its type side, or an optional type's present member's. */
export const descriptionOf = (ast: AST.AST): string | undefined => {
  const own = Option.getOrUndefined(AST.getDescriptionAnnotation(ast))
  if (own !== undefined) return own
  // A class keeps its description on its type side; an optional type, on the type it may be.
  if (ast._tag === "Transformation") return Option.getOrUndefined(AST.getDescriptionAnnotation(ast.to))
  const present = ast._tag === "Union" ? presentMember(ast) : undefined
  return present === undefined ? undefined : descriptionOf(present)
}

const unwrapped = (type: GraphQLType): GraphQLType => (isNonNullType(type) ? type.ofType : type)

/** The members of an object schema, by name. */
const membersOf = (ast: AST.AST) =>
  new Map((objectOf(ast)?.propertySignatures ?? []).map((member) => [String(member.name), member]))

const memberDescription = (member: AST.PropertySignature) =>
  Option.getOrUndefined(AST.getDescriptionAnnotation(member)) ?? descriptionOf(member.type)

/** Describes a GraphQL type (object, input object, or a list of one) and its fields from a schema. */
const describeType = (graphql: GraphQLType, ast: AST.AST): void => {
  const type = unwrapped(graphql)
  if (isListType(type)) {
    const element = elementOf(ast)
    if (element !== undefined) describeType(type.ofType, element)
    return
  }
  if (!isObjectType(type) && !isInputObjectType(type)) return
  say(type, descriptionOf(ast))
  const members = membersOf(ast)
  for (const field of Object.values(type.getFields())) {
    const member = members.get(field.name)
    if (member === undefined) continue
    say(field, memberDescription(member))
    describeType(field.type, member.type)
  }
}

/** A Get/Create result is the record under one field (`{org: ...}`) unless the schema holds that field. */
const describeResult = (graphql: GraphQLType, success: AST.AST, operation: string) => {
  const type = unwrapped(graphql)
  if (!isObjectType(type)) return
  const fields = Object.values(type.getFields())
  const only = soleOf(fields)
  if (only !== undefined && !membersOf(success).has(only.name)) {
    say(type, `What ${operation} answers: the record under one field`)
    say(only, descriptionOf(success))
    describeType(only.type, success)
  } else {
    describeType(type, success)
  }
}

export const describedSchema = (schema: GraphQLSchema, roots: RootOperations): GraphQLSchema => {
  const fields = { ...schema.getQueryType()?.getFields(), ...schema.getMutationType()?.getFields() }
  for (const [name, { renamed = {}, rpc }] of Object.entries(roots)) {
    const field = fields[name]
    if (field === undefined) continue
    const { _tag, annotations, payloadSchema, successSchema } = rpc as unknown as Rpc.AnyWithProps
    say(field, Option.getOrUndefined(Context.getOption(annotations, OperationDescription)))
    const payload = domainSchemaOf(payloadSchema).ast
    const [input] = field.args
    // A mutation takes its payload as one `input` object; a query as its arguments.
    if (input !== undefined && field.args.length === 1 && input.name === "input" && !membersOf(payload).has("input")) {
      say(input, descriptionOf(payload))
      describeType(input.type, payload)
    } else {
      const members = membersOf(payload)
      for (const argument of field.args) {
        const member = members.get(renamed[argument.name] ?? argument.name)
        if (member !== undefined) say(argument, memberDescription(member))
      }
    }
    describeResult(field.type, successSchema.ast, _tag)
  }
  return schema
}
