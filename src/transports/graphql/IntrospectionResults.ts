import { Metric, MetricLabel } from "effect"
import { type execute, type ExecutionArgs, type ExecutionResult, getOperationAST, Kind } from "./GraphqlJs.js"
import { introspectionOnly } from "./IntrospectionOnly.js"

/**
 * How introspection operations were answered, by service: `walked` (graphql-js ran the operation,
 * walking the schema) or `cached` (the answer to the same document given before).
 */
export const introspectionAnswers = Metric.counter("onboarding_graphql_introspection_total", {
  description: "GraphQL introspection operations answered, by service and answer (walked or cached)"
})

export interface IntrospectionResultsOptions {
  /** The `service` label of introspectionAnswers. */
  readonly service: string
  readonly maxEntries: number
  /** The most the answers kept may take, all together, as JSON. */
  readonly maxBytes: number
}

type Execute = typeof execute

/**
 * The answers to introspection operations (every root field `__schema`, `__type` or
 * `__typename`: IntrospectionOnly.ts), kept by the document's text, the operation's name and, when
 * the operation declares variables, their values. Walking the schema is what an introspection
 * operation costs, and callers without the token may send them (SCHEMA_ACCESS=open): so the same
 * document is walked once, not once per call.
 *
 * Safe because such an answer depends on nothing but the schema and what the request names: the
 * introspection resolvers are graphql-js's own, reading the schema alone, never the context (the
 * caller, its token, its request id) or the root value; `__typename` names the root type. One
 * instance per handler, so per port's schema. Only answers without errors are kept (a request's
 * mistakes are answered afresh), in insertion order refreshed on use, bounded in entries and in
 * bytes; an answer larger than a quarter of the bytes is never kept.
 */
export const introspectionResults = (options: IntrospectionResultsOptions) => (run: Execute): Execute => {
  const kept = new Map<string, { readonly result: ExecutionResult; readonly bytes: number }>()
  let totalBytes = 0
  const labels = (answer: "walked" | "cached") => [MetricLabel.make("service", options.service), MetricLabel.make("answer", answer)]
  const walked = labels("walked")
  const cached = labels("cached")

  const keyOf = (args: ExecutionArgs): string | undefined => {
    const text = args.document.loc?.source.body
    if (text === undefined) return undefined
    const operation = getOperationAST(args.document, args.operationName)
    const variables = operation?.variableDefinitions?.length ? args.variableValues ?? null : null
    return JSON.stringify([args.operationName ?? null, variables, text])
  }

  const keep = (key: string, result: ExecutionResult) => {
    const bytes = key.length + JSON.stringify(result).length
    if (bytes > options.maxBytes / 4) return
    while (kept.size > 0 && (kept.size >= options.maxEntries || totalBytes + bytes > options.maxBytes)) {
      const [oldest, entry] = kept.entries().next().value!
      kept.delete(oldest)
      totalBytes -= entry.bytes
    }
    kept.set(key, { result, bytes })
    totalBytes += bytes
  }

  // Whether a document's operations are introspection only, by the name a request picks one with
  // (null: none): worked out once per document, not per call, since the document cache hands out
  // the same document for the same text. Only the names the document declares are kept.
  const schemaOnly = new WeakMap<ExecutionArgs["document"], Map<string | null, boolean>>()
  const isSchemaOnly = (document: ExecutionArgs["document"], operationName: string | null | undefined): boolean => {
    let byName = schemaOnly.get(document)
    if (byName === undefined) {
      byName = new Map([[null, introspectionOnly(document, null)]])
      for (const definition of document.definitions) {
        const name = definition.kind === Kind.OPERATION_DEFINITION ? definition.name?.value : undefined
        if (name !== undefined && !byName.has(name)) byName.set(name, introspectionOnly(document, name))
      }
      schemaOnly.set(document, byName)
    }
    return byName.get(operationName ?? null) ?? false
  }

  return ((args: ExecutionArgs) => {
    if (!isSchemaOnly(args.document, args.operationName)) return run(args)
    const key = keyOf(args)
    const known = key === undefined ? undefined : kept.get(key)
    if (key !== undefined && known !== undefined) {
      kept.delete(key)
      kept.set(key, known)
      introspectionAnswers.unsafeUpdate(1, cached)
      return known.result
    }
    introspectionAnswers.unsafeUpdate(1, walked)
    const result = run(args)
    // graphql-js's introspection resolvers are synchronous: the answer is at hand, not a promise.
    if (key !== undefined && !("then" in result) && result.errors === undefined) keep(key, result)
    return result
  }) as Execute
}
