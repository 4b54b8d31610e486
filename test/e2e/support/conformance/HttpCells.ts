import type * as HttpApi from "@effect/platform/HttpApi"
import type * as Rpc from "@effect/rpc/Rpc"
import { Option, Schema } from "effect"
import {
  buildClientSchema,
  getIntrospectionQuery,
  getNamedType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type IntrospectionQuery,
  isObjectType
} from "graphql"
import type { ServiceUrls } from "../StyleClient.js"
import { lowerFirst } from "./Catalog.js"
import type { CatalogOperation } from "./Catalog.js"
import { type Answer, type Cell, type CellClient, codeNameOf, snakeName } from "./Cell.js"
import { jsonOf, type RawHttp, rawHttp } from "./RawHttp.js"

/**
 * REST, GraphQL and /rpc, each through a plain node:http or node:http2 client that knows only
 * what a caller reads off the port: REST's routes (the HttpApi its OpenAPI document is made from),
 * GraphQL's schema (introspected over the wire), @effect/rpc's frames.
 */

type Fields = Record<string, unknown>

const json = { "content-type": "application/json" }

/**
 * The payload's field a path parameter or argument takes: its namesake, or else the payload's
 * only field when no other parameter is named after it (`:id` of `{workflowId}`).
 */
const fieldFor = (name: string, payload: Fields, parameters: ReadonlyArray<string>): string | undefined => {
  if (name in payload) return name
  const names = Object.keys(payload)
  return names.length === 1 && !parameters.includes(names[0]!) ? names[0] : undefined
}

/** The HTTP status the contract gives a REST refusal of each code the table meets (contract §3.7). */
const restStatus: Record<string, number> = { invalid_argument: 400, not_found: 404, already_exists: 409 }

const restCall = (raw: RawHttp, urls: ServiceUrls) => async (operation: CatalogOperation, payload: unknown): Promise<Answer> => {
  const name = lowerFirst(operation.tag)
  const endpoint = Object.values((operation.api.rest.api as HttpApi.HttpApi.AnyWithProps).groups)
    .flatMap((group) => Object.values(group.endpoints))
    .find((each) => each.name === name)
  if (endpoint === undefined) throw new Error(`the REST API has no endpoint ${name}`)
  const rest: Fields = { ...(payload as Fields) }
  const parameters = [...endpoint.path.matchAll(/:(\w+)/g)].map((match) => match[1]!)
  const path = endpoint.path.replace(/:(\w+)/g, (_, parameter: string) => {
    const field = fieldFor(parameter, rest, parameters) ?? parameter
    const value = rest[field]
    delete rest[field]
    return encodeURIComponent(String(value))
  })
  const inQuery = endpoint.method === "GET"
  const query = inQuery ? new URLSearchParams(Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, String(value)]))).toString() : ""
  const reply = await raw.send(urls[operation.service], {
    method: endpoint.method,
    path: query === "" ? path : `${path}?${query}`,
    ...(inQuery ? {} : { headers: json, body: JSON.stringify(rest) })
  })
  const body = jsonOf(reply.text) as { code?: number; message?: string } | undefined
  if (reply.status === 200) return { ok: true, reply: body }
  const code = codeNameOf(body?.code ?? 2)
  const agrees = restStatus[code] === undefined || restStatus[code] === reply.status
  return { ok: false, code: agrees ? code : `${code} with HTTP ${reply.status}`, message: body?.message ?? reply.text }
}

/** Every field of a result type, nested types' fields too: the whole reply. */
const selectionOf = (type: GraphQLOutputType): string => {
  const named = getNamedType(type)
  if (!isObjectType(named)) return ""
  return `{ ${Object.values(named.getFields()).map((field) => `${field.name} ${selectionOf(field.type)}`).join(" ")} }`
}

/** The contract's root field of an operation (contract §6): `GetOrg` -> `Query.org`, `ListOrgs` -> `Query.orgs`, `CreateOrg` -> `Mutation.createOrg`. */
const rootFieldOf = (schema: GraphQLSchema, tag: string) => {
  const read = /^(Get|List)(.+)$/.exec(tag)
  const type = read === null ? schema.getMutationType() : schema.getQueryType()
  const name = lowerFirst(read === null ? tag : read[2]!)
  const field = type?.getFields()[name]
  if (field === undefined) throw new Error(`the GraphQL schema has no ${read === null ? "Mutation" : "Query"}.${name} for ${tag}`)
  return { kind: read === null ? "mutation" : "query", field }
}

const graphqlCall = (raw: RawHttp, urls: ServiceUrls) => {
  const post = async (service: keyof ServiceUrls, query: string, variables: Fields) => {
    const reply = await raw.send(urls[service], { method: "POST", path: "/graphql", headers: json, body: JSON.stringify({ query, variables }) })
    return jsonOf(reply.text) as { data?: Fields | null; errors?: Array<{ message: string; extensions?: { code?: string } }> }
  }
  const schemas = new Map<string, Promise<GraphQLSchema>>()
  const schemaOf = (service: keyof ServiceUrls) => {
    let schema = schemas.get(service)
    if (schema === undefined) {
      schema = post(service, getIntrospectionQuery(), {}).then((reply) => buildClientSchema(reply.data as unknown as IntrospectionQuery))
      schemas.set(service, schema)
    }
    return schema
  }
  return async (operation: CatalogOperation, payload: unknown): Promise<Answer> => {
    const { field, kind } = rootFieldOf(await schemaOf(operation.service), operation.tag)
    const fields = payload as Fields
    const onlyInput = field.args.length === 1 && field.args[0]!.name === "input"
    const variables: Fields = {}
    for (const argument of field.args) {
      const source = onlyInput ? undefined : fieldFor(argument.name, fields, field.args.map((each) => each.name))
      if (onlyInput) variables[argument.name] = payload
      else if (source !== undefined) variables[argument.name] = fields[source]
    }
    const given = field.args.filter((argument) => argument.name in variables)
    const declared = given.map((argument) => `$${argument.name}: ${String(argument.type)}`).join(", ")
    const passed = given.map((argument) => `${argument.name}: $${argument.name}`).join(", ")
    const document = `${kind} Call${declared === "" ? "" : `(${declared})`} { ${field.name}${passed === "" ? "" : `(${passed})`} ${selectionOf(field.type)} }`
    const reply = await post(operation.service, document, variables)
    const error = reply.errors?.[0]
    if (error !== undefined) return { ok: false, code: snakeName(error.extensions?.code ?? "unknown"), message: error.message }
    return { ok: true, reply: reply.data?.[field.name] }
  }
}

type Frame = { _tag?: string; exit?: { _tag: string; value?: unknown; cause?: unknown } }

/** The first failure in an Exit frame's cause (as @effect/rpc encodes a Cause). */
const failureIn = (cause: unknown): { _tag: string } | undefined => {
  if (typeof cause !== "object" || cause === null) return undefined
  const node = cause as { _tag?: string; error?: { _tag: string }; left?: unknown; right?: unknown }
  if (node._tag === "Fail") return node.error
  return failureIn(node.left) ?? failureIn(node.right)
}

const rpcCall = (raw: RawHttp, urls: ServiceUrls) => async (operation: CatalogOperation, payload: unknown): Promise<Answer> => {
  const frame = { _tag: "Request", id: "1", tag: operation.tag, payload, headers: [] }
  const reply = await raw.send(urls[operation.service], { method: "POST", path: "/rpc", headers: json, body: JSON.stringify(frame) })
  const body = jsonOf(reply.text)
  if (reply.status !== 200) {
    const refusal = body as { code?: number; message?: string } | undefined
    return { ok: false, code: `${codeNameOf(refusal?.code ?? 2)} (HTTP ${reply.status})`, message: refusal?.message ?? reply.text }
  }
  const exit = (Array.isArray(body) ? (body as Array<Frame>) : []).find((each) => each._tag === "Exit")?.exit
  if (exit?._tag === "Success") return { ok: true, reply: exit.value }
  const failure = failureIn(exit?.cause)
  if (failure === undefined) return { ok: false, code: "no failure in the frames", message: reply.text }
  // As @effect/rpc's typed client reads it: the error decoded by the operation's error schema (its message is the class's).
  const rpc = operation.api.rpcs.requests.get(operation.tag) as Rpc.AnyWithProps
  const error = Schema.decodeUnknownOption(rpc.errorSchema as Schema.Schema<unknown, unknown>)(failure)
  const message = Option.match(error, { onNone: () => `undecodable: ${JSON.stringify(failure)}`, onSome: (value) => (value as Error).message })
  return { ok: false, code: snakeName(failure._tag), message }
}

const httpCell = (style: string, call: (raw: RawHttp, urls: ServiceUrls) => CellClient["call"]) =>
  (["HTTP/1.1", "HTTP/2"] as const).map((protocol): Cell => ({
    style,
    protocol,
    make: (urls) => {
      const raw = rawHttp(protocol)
      return { call: call(raw, urls), close: raw.close }
    }
  }))

export const httpCells: ReadonlyArray<Cell> = [
  ...httpCell("REST (node:http, node:http2)", restCall),
  ...httpCell("GraphQL (node:http, node:http2)", graphqlCall),
  ...httpCell("@effect/rpc frames at /rpc (node:http, node:http2)", rpcCall)
]
