import { type DocumentNode, GraphQLError, Lexer, parse, Source, TokenKind } from "../graphql/GraphqlJs.js"
import { errorTable } from "../ErrorTable.js"

/** What a GraphQL document's text may be before it is parsed at all. */
export interface DocumentBounds {
  /** Characters in the document (the body limit is for the whole request, variables included). */
  readonly maxLength: number
  /** Tokens, punctuation included, comments not (graphql-js's own `maxTokens` measure). */
  readonly maxTokens: number
  /** Brackets `{ [ (` open at once: selections, list and object literals, arguments. */
  readonly maxNesting: number
}

/**
 * GraphiQL's full introspection query, the largest document clients of these APIs send as a rule,
 * is about 2,100 characters, 184 tokens and 10 brackets deep; an operation of the default
 * GRAPHQL_MAX_FIELDS (100) aliased fields with arguments is about 400 tokens. Tokens bound the work
 * of graphql-js's validation, which grows with them; nesting bounds recursion: graphql-js parses
 * recursively and overflows the stack (RangeError) on brackets nested deep enough, and 64 is far
 * more than a query needs (the depth limit, 8 by default, counts fields, not brackets). Characters
 * only cost the lexer's pass (what each costs: docs/reliability.md §2a, GraphQL documents). These
 * are constants, not settings: they guard the server, where GRAPHQL_MAX_DEPTH and
 * GRAPHQL_MAX_FIELDS are the policy.
 */
export const defaultDocumentBounds: DocumentBounds = { maxLength: 16_384, maxTokens: 1_000, maxNesting: 64 }

const opening = new Set<string>([TokenKind.BRACE_L, TokenKind.BRACKET_L, TokenKind.PAREN_L])
const closing = new Set<string>([TokenKind.BRACE_R, TokenKind.BRACKET_R, TokenKind.PAREN_R])

const tooLarge = (message: string) =>
  new GraphQLError(message, { extensions: { code: errorTable.ResourceExhausted.graphql } })

/**
 * Refuses a text over the bounds with RESOURCE_EXHAUSTED, from one pass of graphql-js's lexer
 * (iterative, linear; it throws the same syntax errors the parser would), then parses it.
 */
export const boundedParse = (bounds: DocumentBounds) => (text: string): DocumentNode => {
  if (text.length > bounds.maxLength) {
    throw tooLarge(`the document is ${text.length} characters long; at most ${bounds.maxLength} are allowed`)
  }
  const lexer = new Lexer(new Source(text))
  let tokens = 0
  let nesting = 0
  for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) {
    if (++tokens > bounds.maxTokens) {
      throw tooLarge(`the document has more than ${bounds.maxTokens} tokens; at most ${bounds.maxTokens} are allowed`)
    }
    if (opening.has(token.kind) && ++nesting > bounds.maxNesting) {
      throw tooLarge(`the document nests brackets more than ${bounds.maxNesting} deep; at most ${bounds.maxNesting} are allowed`)
    }
    // Never below 0: an unbalanced `}` must not buy credit for deeper nesting after it.
    if (closing.has(token.kind) && nesting > 0) nesting -= 1
  }
  return parse(text, { maxTokens: bounds.maxTokens })
}
