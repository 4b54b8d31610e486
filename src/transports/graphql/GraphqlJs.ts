/**
 * graphql-js, as the one module instance that graphql-http uses too. graphql-js recognises its
 * schemas and errors with `instanceof`, so two copies of it break each other ("Cannot use
 * GraphQLSchema from another module or realm"). Node resolves "graphql" to the CommonJS index.js,
 * which is what graphql-http's ESM build gets; Vite's resolver (so vitest) prefers the package's
 * "module" field, index.mjs. Naming the file makes every resolver load the same copy.
 */
export {
  buildSchema,
  coerceInputValue,
  execute,
  getNamedType,
  getNullableType,
  getOperationAST,
  GraphQLError,
  isEnumType,
  isInputObjectType,
  isInputType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  Lexer,
  parse,
  Source,
  TokenKind,
  typeFromAST,
  validate
} from "graphql/index.js"
export type {
  ArgumentNode,
  ASTNode,
  DocumentNode,
  ExecutionArgs,
  ExecutionResult,
  FragmentDefinitionNode,
  GraphQLResolveInfo,
  GraphQLInputType,
  GraphQLType,
  GraphQLSchema,
  OperationDefinitionNode,
  SelectionSetNode,
  ValidationContext,
  ValidationRule
} from "graphql/index.js"
