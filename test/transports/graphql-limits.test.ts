import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck as fc, Runtime } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { boundedParse, defaultDocumentBounds } from "../../src/transports/limits/DocumentBounds.js"
import { documentCache } from "../../src/transports/graphql/DocumentCache.js"
import { graphqlHandler } from "../../src/transports/graphql/GraphqlHandler.js"
import { getIntrospectionQuery } from "graphql/index.js"
import { aliasedIntrospection, standardIntrospection } from "../support/introspection.js"
import { measuredCosts } from "../support/QueryWork.js"
import {
  buildSchema,
  type DocumentNode,
  type FragmentDefinitionNode,
  GraphQLError,
  parse,
  type SelectionSetNode
} from "../../src/transports/graphql/GraphqlJs.js"
import { countCap, definitionCosts, limitErrors } from "../../src/transports/limits/QueryLimits.js"

/**
 * The GraphQL document's cost is computed in time linear in its text, so a small document cannot
 * stand for an astronomical amount of work; and a text is bounded (length, tokens, nesting) before
 * graphql-js parses it, so it cannot overflow the parser's stack or make its validation slow.
 */

/** `levels` fragments that each spread the next one twice: 2^levels fields in under 2 KB. */
const doubling = (levels: number) => {
  let text = "{ ...F0 }"
  for (let i = 0; i < levels; i++) text += ` fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`
  return `${text} fragment F${levels} on Query { __typename }`
}

const operationCosts = (document: DocumentNode) =>
  [...definitionCosts(document)].find(([definition]) => definition.kind === "OperationDefinition")![1]

/** What an operation asks of the service's own types (the introspection track apart). */
const operationCost = (document: DocumentNode) => {
  const { depth, fields } = operationCosts(document)
  return { depth, fields }
}

/** The operation's cost, and the work done to compute it (QueryWork.ts). */
const measured = (document: DocumentNode) => {
  const { costs, visits, selections } = measuredCosts(document)
  const { depth, fields } = [...costs].find(([definition]) => definition.kind === "OperationDefinition")![1]
  return { cost: { depth, fields }, visits, selections }
}

/** The first definition of each fragment name, as the spreads find them. */
const fragmentsOf = (document: DocumentNode) => {
  const fragments = new Map<string, FragmentDefinitionNode>()
  for (const d of document.definitions) {
    if (d.kind === "FragmentDefinition" && !fragments.has(d.name.value)) fragments.set(d.name.value, d)
  }
  return fragments
}

/** The cost the obvious way: every spread expanded where it stands. Exponential; small documents only. */
const naiveCost = (document: DocumentNode) => {
  const fragments = fragmentsOf(document)
  const expand = (selectionSet: SelectionSetNode): { depth: number; fields: number } => {
    let depth = 0
    let fields = 0
    for (const selection of selectionSet.selections) {
      const inner = selection.kind === "Field"
        ? selection.selectionSet === undefined ? undefined : (({ depth, fields }) => ({ depth: depth + 1, fields }))(expand(selection.selectionSet))
        : selection.kind === "InlineFragment"
        ? expand(selection.selectionSet)
        : expand(fragments.get(selection.name.value)!.selectionSet)
      if (selection.kind === "Field") fields += 1
      if (inner !== undefined) {
        depth = Math.max(depth, inner.depth)
        fields += inner.fields
      }
    }
    return { depth, fields }
  }
  const operation = document.definitions.find((d) => d.kind === "OperationDefinition")!
  const { depth, fields } = expand(operation.selectionSet)
  return { depth: depth + 1, fields }
}

/** The exact field count, in BigInt, each fragment counted once: what saturation must agree with. */
const exactFields = (document: DocumentNode): bigint => {
  const fragments = fragmentsOf(document)
  const known = new Map<string, bigint>()
  const count = (selectionSet: SelectionSetNode): bigint =>
    selectionSet.selections.reduce((sum, selection) => {
      if (selection.kind === "Field") return sum + 1n + (selection.selectionSet === undefined ? 0n : count(selection.selectionSet))
      if (selection.kind === "InlineFragment") return sum + count(selection.selectionSet)
      const name = selection.name.value
      if (!known.has(name)) known.set(name, count(fragments.get(name)!.selectionSet))
      return sum + known.get(name)!
    }, 0n)
  const operation = document.definitions.find((d) => d.kind === "OperationDefinition")!
  return count(operation.selectionSet)
}

/**
 * A random document whose fragments form a DAG: fragment i spreads only the few fragments after it,
 * each any number of times, among fields (some with a selection of their own) and inline fragments.
 */
const fragmentDag = (options: { readonly fragments: number; readonly spreads: number }) =>
  fc.integer({ min: 1, max: options.fragments }).chain((count) => {
    const selection = (index: number): fc.Arbitrary<string> => {
      // Spreads of the next few fragments only: long chains, so expansions grow as powers.
      const later = Array.from({ length: Math.min(3, count - index - 1) }, (_, k) => `...F${index + 1 + k}`)
      const leaf = fc.constantFrom("__typename", "a: __typename", "org(id: 1) { __typename }")
      const spread = later.length === 0 ? leaf : fc.constantFrom(...later)
      return fc.oneof(
        { arbitrary: leaf, weight: 2 },
        { arbitrary: spread, weight: 3 },
        { arbitrary: spread.map((s) => `org(id: 2) { ${s} }`), weight: 1 },
        { arbitrary: spread.map((s) => `... on Query { ${s} }`), weight: 1 }
      )
    }
    const body = (index: number) =>
      fc.array(selection(index), { minLength: 1, maxLength: options.spreads }).map((s) => s.join(" "))
    return fc.tuple(body(-1), fc.tuple(...Array.from({ length: count }, (_, i) => body(i)))).map(([operation, fragments]) =>
      [`{ ${operation} }`, ...fragments.map((f, i) => `fragment F${i} on Query { ${f} }`)].join(" ")
    )
  })

describe("GraphQL query limits", () => {
  it("count fragments that each spread the next one twice without expanding them: linear, saturated, refused", () => {
    for (const levels of [22, 30, 200]) {
      const document = parse(doubling(levels), { maxTokens: 10_000 })
      const { cost, visits, selections } = measured(document)
      expect(cost).toEqual({ depth: 1, fields: Math.min(2 ** levels, countCap) })
      // Expanded, 30 levels measured 2^30 selections (over ten minutes); memoised, each of the 2 * levels + 2 once.
      expect(selections).toBe(2 * levels + 2)
      expect(visits).toBeLessThanOrEqual(selections)
      const errors = limitErrors(document, { maxDepth: 8, maxFields: 100 })
      expect(errors[0]?.message).toBe("the operation selects 1000000 or more fields; at most 100 are allowed")
      expect(errors[0]?.extensions).toEqual({ code: "RESOURCE_EXHAUSTED" })
      expect(errors.length).toBeLessThanOrEqual(10)
    }
    expect(operationCost(parse(doubling(10)))).toEqual({ depth: 1, fields: 1024 })
  })

  it("count wide and deep fragment shapes, and hold fragments alone to the same limits", () => {
    const wide = `{ ...W } fragment W on Query { ${Array.from({ length: 120 }, (_, i) => `a${i}: __typename`).join(" ")} }`
    expect(limitErrors(parse(wide), { maxDepth: 8, maxFields: 100 }).map((e) => e.message)).toEqual([
      "the operation selects 120 fields; at most 100 are allowed",
      "fragment W selects 120 fields; at most 100 are allowed"
    ])
    // Each fragment one level deeper than the next: depth grows by one per fragment, not 2^n.
    let deep = "{ ...D0 }"
    for (let i = 0; i < 12; i++) deep += ` fragment D${i} on Query { org(id: 1) { ...D${i + 1} ...D${i + 1} } }`
    deep += " fragment D12 on GetOrgResponse { __typename }"
    expect(operationCost(parse(deep))).toEqual({ depth: 13, fields: 2 ** 13 - 1 })
    const unused = `{ __typename } fragment U on Query { ${"__typename ".repeat(150)}}`
    expect(limitErrors(parse(unused), { maxDepth: 8, maxFields: 100 }).map((e) => e.message)).toEqual([
      "fragment U selects 150 fields; at most 100 are allowed"
    ])
  })

  it("leave fragment cycles to graphql-js, and measure them in linear time", () => {
    const cycle = "{ ...A } fragment A on Query { ...B ...B __typename } fragment B on Query { ...A ...A __typename }"
    const costs = [...definitionCosts(parse(cycle)).values()]
    expect(costs.every((cost) => cost.fields <= 3)).toBe(true)
    const { visits, selections } = measured(parse(cycle))
    expect(visits).toBeLessThanOrEqual(selections)
  })

  it.prop(
    "agree with a naive expansion on random DAGs of fragments (200 runs)",
    [fragmentDag({ fragments: 6, spreads: 3 })],
    ([text]) => {
      const document = parse(text)
      expect(operationCost(document)).toEqual(naiveCost(document))
    },
    { fastCheck: { numRuns: 200 } }
  )

  it.prop(
    "measure each selection at most once and saturate exactly on large random DAGs of fragments (100 runs)",
    [fragmentDag({ fragments: 60, spreads: 6 })],
    ([text]) => {
      const document = parse(text, { maxTokens: 100_000 })
      const { cost, visits, selections } = measured(document)
      const exact = exactFields(document)
      expect(cost.fields).toBe(exact >= BigInt(countCap) ? countCap : Number(exact))
      // Expanded, the paths through fragments that each spread the next few grow as powers of their count.
      expect(visits).toBeLessThanOrEqual(selections)
    },
    { fastCheck: { numRuns: 100 } }
  )
})

describe("GraphQL introspection, within bounds of its own", () => {
  const limits = { maxDepth: 8, maxFields: 100 }
  it("the standard introspection query (graphql-js's, what GraphiQL sends) passes the default limits on a track of its own", () => {
    const document = parse(standardIntrospection)
    expect(limitErrors(document, limits)).toEqual([])
    expect(operationCosts(document)).toEqual({ depth: 1, fields: 0, introspection: { depth: 14, fields: 230 } })
    // Its fragments are on introspection types: their fields count on that track too.
    const fullType = [...definitionCosts(document)].find(([d]) => d.kind === "FragmentDefinition" && d.name.value === "FullType")![1]
    expect(fullType).toMatchObject({ depth: 0, fields: 0, introspection: { fields: 177 } })
  })

  it("more than one copy of it in an operation is refused, and so is an alias bomb in a fragment on an introspection type", () => {
    expect(limitErrors(parse(aliasedIntrospection(1)), limits)).toEqual([])
    expect(limitErrors(parse(aliasedIntrospection(2)), limits).map((e) => e.message)).toEqual([
      "the operation's introspection selects 460 fields; at most 300 are allowed"
    ])
    const bomb = `{ ...Q } fragment Q on Query { __typename } fragment T on __Type { ${
      Array.from({ length: 310 }, (_, i) => `a${i}: name`).join(" ")
    } }`
    expect(limitErrors(parse(bomb, { maxTokens: 10_000 }), limits).map((e) => e.message)).toEqual([
      "fragment T's introspection selects 310 fields; at most 300 are allowed"
    ])
  })

  it("introspection does not lift the limits on the service's own fields beside it", () => {
    const beside = `{ __schema { queryType { name } } ${Array.from({ length: 101 }, (_, i) => `a${i}: __typename`).join(" ")} }`
    expect(limitErrors(parse(beside), limits).map((e) => e.message)).toEqual([
      "the operation selects 101 fields; at most 100 are allowed"
    ])
  })
})

describe("GraphQL document bounds", () => {
  const bounded = boundedParse(defaultDocumentBounds)
  const refusal = (text: string) => {
    try {
      bounded(text)
    } catch (error) {
      return error
    }
    return undefined
  }

  it("let GraphiQL's full introspection query through", () => {
    const introspection = getIntrospectionQuery({
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true
    })
    expect(refusal(introspection)).toBeUndefined()
    // Room to spare: the same query five times over, as one document, still passes.
    const fiveTimes = [1, 2, 3, 4, 5].map((i) => introspection.replace(/IntrospectionQuery|FullType|InputValue|TypeRef/g, (n) => `${n}${i}`))
    expect(refusal(fiveTimes.join("\n"))).toBeUndefined()
  })

  it("refuse a literal nested 10,000 deep as RESOURCE_EXHAUSTED, where graphql-js alone overflows its stack", () => {
    const lists = `{ org(id: ${"[".repeat(10_000)}"x"${"]".repeat(10_000)}) { __typename } }`
    expect(() => parse(lists)).toThrow(RangeError)
    const objects = `mutation { createOrg(input: ${"{a: ".repeat(5_000)}1${"}".repeat(5_000)}) { __typename } }`
    for (const text of [lists.replace(/"x"/, "1").slice(0, 16_000), objects.slice(0, 16_000)]) {
      const error = refusal(text)
      expect(error).toBeInstanceOf(GraphQLError)
      expect((error as GraphQLError).message).toBe("the document nests brackets more than 64 deep; at most 64 are allowed")
      expect((error as GraphQLError).extensions).toEqual({ code: "RESOURCE_EXHAUSTED" })
    }
    expect((refusal(lists) as GraphQLError).message).toBe(
      `the document is ${lists.length} characters long; at most 16384 are allowed`
    )
    // `{`, `(` and 62 `[`: 64 open at once, the most allowed.
    expect(refusal(`{ org(id: ${"[".repeat(62)}1${"]".repeat(62)}) { __typename } }`)).toBeUndefined()
    expect(refusal(`{ org(id: ${"[".repeat(63)}1${"]".repeat(63)}) { __typename } }`)).toBeInstanceOf(GraphQLError)
  })

  it("refuse more than 1,000 tokens, and an unbalanced close buys no extra nesting", () => {
    expect((refusal(`{ ${"a ".repeat(1_000)}}`) as GraphQLError).message).toBe(
      "the document has more than 1000 tokens; at most 1000 are allowed"
    )
    expect(refusal(`{ ${"a ".repeat(997)}}`)).toBeUndefined()
    const error = refusal(`${"} ".repeat(100)}${"{ a ".repeat(70)}`) as GraphQLError
    expect(error.message).toMatch(/^Syntax Error|nests brackets more than 64 deep/)
    expect(refusal(`${"} ".repeat(100)}{ ${"[".repeat(70)}`)).toBeInstanceOf(GraphQLError)
  })
})

describe("GraphQL validation behind the limits", () => {
  const schema = buildSchema("type Query { hello: String }")

  it("a document the screen refuses is never shown to graphql-js's rules", () => {
    const documents = documentCache({
      schema,
      maxEntries: 10,
      maxTotalLength: 10_000,
      maxQueryLength: 1_000,
      screen: (document) => limitErrors(document, { maxDepth: 8, maxFields: 2 })
    })
    const ruleRan = () => {
      throw new Error("a rule ran")
    }
    const refused = documents.validate(schema, documents.parse("{ hello hello hello }"), [ruleRan])
    expect(refused.map((e) => e.message)).toEqual(["the operation selects 3 fields; at most 2 are allowed"])
    expect(() => documents.validate(schema, documents.parse("{ hello }"), [ruleRan])).toThrow("a rule ran")
  })

  it.effect("an error JavaScript raises (a stack overflow, bounds lifted) reaches the wire as `internal error`", () =>
    Effect.gen(function*() {
      const handler = graphqlHandler(
        { schema, operations: { hello: () => Effect.succeed("hi") } },
        Runtime.defaultRuntime,
        { documentBounds: { maxLength: 1e9, maxTokens: 1e9, maxNesting: 1e9 } }
      )
      const server = yield* Effect.acquireRelease(
        Effect.async<http.Server>((resume) => {
          const listening = http.createServer(handler).listen(0, "127.0.0.1", () => resume(Effect.succeed(listening)))
        }),
        (server) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
      )
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`
      const query = `{ hello(x: ${"[".repeat(20_000)}${"]".repeat(20_000)}) }`
      const reply = yield* Effect.promise(() =>
        fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query }) })
          .then(async (r) => ({ status: r.status, text: await r.text() }))
      )
      expect(reply.status).toBe(400)
      expect(JSON.parse(reply.text)).toEqual({ errors: [{ message: "internal error", extensions: { code: "INTERNAL" } }] })
    }).pipe(Effect.scoped))
})
