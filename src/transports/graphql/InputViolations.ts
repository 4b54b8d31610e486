import type { ArgumentNode, ASTNode, DocumentNode, GraphQLInputType, GraphQLSchema, SelectionSetNode } from "./GraphqlJs.js"
import {
  coerceInputValue,
  getNamedType,
  getNullableType,
  getOperationAST,
  GraphQLError,
  isEnumType,
  isInputObjectType,
  isInputType,
  isListType,
  isNonNullType,
  Kind,
  typeFromAST
} from "./GraphqlJs.js"
import { FieldViolation } from "../../domain/Errors.js"
import { kindWords, wholeNumberFrom } from "../../domain/RuleWords.js"
import { unknownFieldRule } from "../../domain/Validation.js"
import { graphqlErrorExtensions } from "../ErrorTable.js"
import { payloadArgument } from "./GraphqlApi.js"

/*
 * graphql-js refuses an argument or a variable that does not fit its type before any resolver
 * runs: a literal in the document when it validates it (ValuesOfCorrectTypeRule, an unknown
 * argument), a variable's JSON when it coerces it. Each such error gets the table's
 * INVALID_ARGUMENT and its field violation (contract §8), named as a resolver's refusal names it:
 * by its path in the operation's payload (`fullName`, `org.name`, `pageSize`). The path is read
 * from the document and from coerceInputValue's own paths, the rule from the type; graphql-js's
 * message stays as it is and is never parsed.
 */

/** A field's path from its root field's arguments: `input` (contract §6) holds a payload, named without it. */
const named = (path: ReadonlyArray<string | number>): string =>
  (path.length > 1 && path[0] === payloadArgument ? path.slice(1) : path).join(".")

const scalarWords: Record<string, string> = {
  String: `must be ${kindWords.string}`,
  ID: `must be ${kindWords.string} or ${kindWords.wholeNumber}`,
  Int: wholeNumberFrom(-(2 ** 31), 2 ** 31 - 1),
  Float: `must be ${kindWords.number}`,
  Boolean: `must be ${kindWords.boolean}`
}

/** What a value at a place of `type` must be, in words. */
const ruleOf = (type: GraphQLInputType, value: unknown): string => {
  if (value === null && isNonNullType(type)) return "must not be null"
  const nullable = getNullableType(type)
  if (isInputObjectType(nullable)) return `must be ${kindWords.object}`
  if (isListType(nullable)) return `must be ${kindWords.list}`
  const named = getNamedType(nullable)
  if (isEnumType(named)) return `must be one of: ${named.getValues().map((each) => each.name).join(", ")}`
  return scalarWords[named.name] ?? `must be a ${named.name}`
}

/** The required fields of an input object `type` that `present` lacks, in the type's order (as graphql-js reports them). */
const missing = (type: GraphQLInputType, present: (name: string) => boolean): Array<string> => {
  const nullable = getNullableType(type)
  if (!isInputObjectType(nullable)) return []
  return Object.values(nullable.getFields())
    .filter((field) => isNonNullType(field.type) && field.defaultValue === undefined && !present(field.name))
    .map((field) => field.name)
}

/** The type at `path` inside `type`. */
const typeAt = (type: GraphQLInputType, path: ReadonlyArray<string | number>): GraphQLInputType | undefined => {
  let at: GraphQLInputType | undefined = type
  for (const step of path) {
    const nullable: GraphQLInputType | undefined = at === undefined ? undefined : getNullableType(at)
    at = isListType(nullable) ? nullable.ofType : isInputObjectType(nullable) ? nullable.getFields()[String(step)]?.type : undefined
  }
  return at
}

interface Place {
  readonly path: ReadonlyArray<string | number>
  /** The type at the place; absent for an argument or input field the type does not have. */
  readonly type?: GraphQLInputType
}

/** Where each value node of the document's root fields' arguments sits, and where each variable is first used there. */
const placesIn = (schema: GraphQLSchema, document: DocumentNode) => {
  const nodes = new Map<ASTNode, Place>()
  const variables = new Map<string, Place>()
  const fragments = new Map(document.definitions.flatMap((each) => each.kind === Kind.FRAGMENT_DEFINITION ? [[each.name.value, each]] : []))
  const value = (node: ArgumentNode["value"], type: GraphQLInputType, path: ReadonlyArray<string | number>): void => {
    if (node.kind === Kind.VARIABLE) {
      if (!variables.has(node.name.value)) variables.set(node.name.value, { path, type })
      return
    }
    nodes.set(node, { path, type })
    const nullable = getNullableType(type)
    if (node.kind === Kind.LIST && isListType(nullable)) node.values.forEach((item, index) => value(item, nullable.ofType, [...path, index]))
    if (node.kind === Kind.OBJECT && isInputObjectType(nullable)) {
      for (const field of node.fields) {
        const defined = nullable.getFields()[field.name.value]
        if (defined === undefined) nodes.set(field, { path: [...path, field.name.value] })
        else value(field.value, defined.type, [...path, field.name.value])
      }
    }
  }
  const seen = new Set<string>()
  const selections = (set: SelectionSetNode, root: ReturnType<GraphQLSchema["getQueryType"]>): void => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.INLINE_FRAGMENT) selections(selection.selectionSet, root)
      else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(selection.name.value)
        if (fragment !== undefined && !seen.has(fragment.name.value)) seen.add(fragment.name.value), selections(fragment.selectionSet, root)
      } else {
        const field = root?.getFields()[selection.name.value]
        for (const argument of selection.arguments ?? []) {
          const defined = field?.args.find((each) => each.name === argument.name.value)
          if (defined === undefined) nodes.set(argument, { path: [argument.name.value] })
          else value(argument.value, defined.type, [argument.name.value])
        }
      }
    }
  }
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION) selections(definition.selectionSet, schema.getRootType(definition.operation))
  }
  return { nodes, variables }
}

const violated = (error: GraphQLError, path: ReadonlyArray<string | number>, description: string): GraphQLError =>
  new GraphQLError(error.message, {
    nodes: error.nodes ?? null,
    source: error.source ?? null,
    positions: error.positions ?? null,
    path: error.path ?? null,
    originalError: error.originalError ?? null,
    extensions: { ...error.extensions, ...graphqlErrorExtensions("InvalidArgument", { violations: [new FieldViolation({ field: named(path), description })] }) }
  })

/** Hands out the k-th of a list per key, in the order graphql-js reports several errors at one place. */
const inTurn = () => {
  const taken = new Map<unknown, number>()
  return <A>(key: unknown, list: ReadonlyArray<A>): A | undefined => {
    const k = taken.get(key) ?? 0
    taken.set(key, k + 1)
    return list[k]
  }
}

/** A document's validation errors, those about an argument's value each with its violation. */
export const literalViolations = (schema: GraphQLSchema, document: DocumentNode, errors: ReadonlyArray<GraphQLError>): ReadonlyArray<GraphQLError> => {
  if (errors.length === 0) return errors
  const { nodes } = placesIn(schema, document)
  const next = inTurn()
  return errors.map((error) => {
    const node = error.nodes?.[0]
    const place = node === undefined ? undefined : nodes.get(node)
    if (node === undefined || place === undefined) return error
    if (place.type === undefined) return violated(error, place.path, unknownFieldRule)
    if (node.kind === Kind.OBJECT && isInputObjectType(getNullableType(place.type))) {
      const present = new Set(node.fields.map((field) => field.name.value))
      const field = next(node, missing(place.type, (name) => present.has(name)))
      return field === undefined ? error : violated(error, [...place.path, field], "is required")
    }
    return violated(error, place.path, ruleOf(place.type, node.kind === Kind.NULL ? null : undefined))
  })
}

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

interface Violation {
  readonly path: ReadonlyArray<string | number>
  readonly description: string
}

/** The violations of one variable's value, as coerceInputValue reports them, in its order. */
const valueViolations = (value: unknown, type: GraphQLInputType): Array<Violation> => {
  const found: Array<Violation> = []
  const next = inTurn()
  coerceInputValue(value, type, (path, invalid) => {
    const here = typeAt(type, path)
    if (here === undefined) return found.push({ path, description: "is not valid" })
    const nullable = getNullableType(here)
    if (isInputObjectType(nullable) && isObject(invalid)) {
      const object = invalid
      const fields = [
        ...missing(here, (name) => object[name] !== undefined).map((field) => ({ path: [...path, field], description: "is required" })),
        ...Object.keys(object).filter((key) => nullable.getFields()[key] === undefined)
          .map((key) => ({ path: [...path, key], description: unknownFieldRule }))
      ]
      return found.push(next(path.join("\u0000"), fields) ?? { path, description: "is not valid" })
    }
    return found.push({ path, description: ruleOf(here, invalid) })
  })
  return found
}

/** A request error of execution (its variables refused), each error about a variable's value with its violation. */
export const variableViolations = (
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variableValues: Readonly<Record<string, unknown>> | null | undefined,
  errors: ReadonlyArray<GraphQLError>
): ReadonlyArray<GraphQLError> => {
  const operation = getOperationAST(document, operationName)
  if (operation === null || operation === undefined) return errors
  const { variables } = placesIn(schema, document)
  const perVariable = new Map<ASTNode, Array<Violation>>()
  for (const definition of operation.variableDefinitions ?? []) {
    const type = typeFromAST(schema, definition.type)
    const value = variableValues?.[definition.variable.name.value]
    if (type === undefined || !isInputType(type)) continue
    perVariable.set(
      definition,
      value === undefined ? [{ path: [], description: "is required" }] : value === null ? [{ path: [], description: ruleOf(type, null) }] : valueViolations(value, type)
    )
  }
  const next = inTurn()
  return errors.map((error) => {
    const definition = error.nodes?.[0]
    const found = definition === undefined ? undefined : perVariable.get(definition)
    const used = definition?.kind === Kind.VARIABLE_DEFINITION ? variables.get(definition.variable.name.value) : undefined
    const violation = found === undefined || used === undefined ? undefined : next(definition, found)
    return violation === undefined || used === undefined ? error : violated(error, [...used.path, ...violation.path], violation.description)
  })
}
